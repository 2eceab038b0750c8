import { el } from '../shared/dom';
import { codeBlock, renderMarkdown, type MarkdownActions } from './markdown';
import { scrollFrame } from './scrollFrame';
import { MarkdownBlockSplitter, type OpenFence, type SplitUpdate } from './markdownBlocks';

/**
 * A streaming answer's body, rendered as Markdown while it streams: each settled block
 * (markdownBlocks.ts) is rendered once, through the same sanitised path as a finished answer,
 * and appended; only the live tail is rendered again, at most once per animation frame — and
 * a code fence still open is plain code whose text grows by the delta. When the answer
 * finishes, `keepStreamedBody` keeps this body if it renders the same as the finished one.
 */

const bodies = new WeakMap<Element, StreamingBody>();

class StreamingBody {
  readonly root = el('div', { class: 'text markdown' });
  private readonly splitter = new MarkdownBlockSplitter();
  /** The tail's nodes: the root's last children. */
  private tail: ChildNode[] = [];
  private fence: { lang: string; code: Text; block: HTMLElement } | undefined;
  private pending = '';
  private frame = 0;
  /** Markdown failed once: from then on the body is plain text. */
  private plain = false;

  constructor(private readonly actions: MarkdownActions) {}

  /** Takes a delta: rendered on the next animation frame (now, when there are no frames). */
  push(delta: string): void {
    if (this.plain) return void this.root.append(delta);
    this.pending += delta;
    if (this.frame) return;
    if (typeof requestAnimationFrame !== 'function') return this.flush();
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.flush();
    });
  }

  /** Renders what is pending now. */
  flush(): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    if (this.plain) return;
    const delta = this.pending;
    this.pending = '';
    try {
      this.render(this.splitter.push(delta));
    } catch (err) {
      console.warn(`Context Pipeline: could not render streamed Markdown, showing text: ${String(err)}`);
      this.plain = true;
      this.root.classList.remove('markdown');
      this.root.replaceChildren(this.splitter.text);
    }
  }

  private render(update: SplitUpdate): void {
    if (update.settled.length > 0) {
      const settled = document.createDocumentFragment();
      for (const b of update.settled) settled.append(renderMarkdown(b.source, this.actions, b.references));
      this.root.insertBefore(settled, this.tail[0] ?? null);
    }
    if (update.openFence) this.renderFence(update.openFence);
    else this.replaceTail(update.tail ? renderMarkdown(update.tail, this.actions, update.references) : undefined);
  }

  /** An open fence: its code text grows in place; a new fence (or language) gets a new block. */
  private renderFence(open: OpenFence): void {
    const fence = this.fence;
    if (fence && fence.lang === open.lang && this.tail.length === 1 && this.tail[0] === fence.block) {
      const have = fence.code.data;
      if (open.code.startsWith(have)) fence.code.appendData(open.code.slice(have.length));
      else fence.code.data = open.code;
      return;
    }
    const code = document.createTextNode(open.code);
    const block = codeBlock(open.lang, this.actions);
    block.append(scrollFrame(el('pre', {}, el('code', open.lang ? { class: `language-${open.lang}` } : {}, code))));
    this.replaceTail(block);
    this.fence = { lang: open.lang, code, block };
  }

  private replaceTail(next: DocumentFragment | ChildNode | undefined): void {
    for (const node of this.tail) node.remove();
    this.fence = undefined;
    this.tail = next ? (next instanceof DocumentFragment ? Array.from(next.childNodes) : [next]) : [];
    if (next) this.root.append(next);
  }
}

/**
 * The body of a streaming answer (a `.text.markdown` element) showing `text` so far, rendered
 * at once (a view shown again mid-answer shows it whole); later deltas go to `appendToBody`.
 */
export function streamingBody(text: string, actions: MarkdownActions): HTMLElement {
  const body = new StreamingBody(actions);
  bodies.set(body.root, body);
  body.push(text);
  body.flush();
  return body.root;
}

/** Appends a streamed delta to an answer's body: rendered as Markdown when it is a streaming body, else as text. */
export function appendToBody(body: Element, delta: string): void {
  const streaming = bodies.get(body);
  if (streaming) streaming.push(delta);
  else body.append(delta);
}

/**
 * `next` (the finished answer that replaces the streaming `old`) with the streamed body moved in
 * when it renders exactly the same (no node swapped, a selection or a code block's scroll kept);
 * otherwise `next` as it is, its body replacing the old one in the same step.
 */
export function keepStreamedBody(old: HTMLElement, next: HTMLElement): HTMLElement {
  const before = old.querySelector(':scope > .text');
  const streamed = before ? bodies.get(before) : undefined;
  const after = next.querySelector(':scope > .text');
  if (!before || !streamed || !after || bodies.has(after)) return next;
  streamed.flush();
  if (before.isEqualNode(after)) {
    bodies.delete(before);
    after.replaceWith(before);
  }
  return next;
}
