// A local ESLint rule (type-aware): `void somePromise` must say why dropping the promise is safe.
// `@typescript-eslint/no-floating-promises` accepts `void` as "intended fire-and-forget"; this rule
// asks for the reason next to it (who handles a rejection, or why there is none), so a promise that
// can reject with nobody listening — an unhandled rejection in the extension host — is not hidden.

/** True when `type` (or every part of a union) is thenable: it has a callable `then`. */
function isThenable(checker, type, at) {
  const parts = type.isUnion() ? type.types : [type];
  return parts.some((t) => {
    const then = checker.getPropertyOfType(t, 'then');
    return then !== undefined && checker.getTypeOfSymbolAtLocation(then, at).getCallSignatures().length > 0;
  });
}

/**
 * The rule: reports a `void` whose operand is thenable unless a comment ends on the line
 * before the `void` or sits on the line where it starts. Needs typed linting (parserOptions.projectService).
 */
export const voidPromiseReason = {
  meta: {
    type: 'problem',
    docs: { description: 'A `void` on a promise carries a comment saying who handles its rejection.' },
    schema: [],
    messages: {
      reason:
        '`void` drops a promise: await it, or say on the line above why that is safe (who handles its rejection; .catch and report if nobody does).',
    },
  },
  create(context) {
    const services = context.sourceCode.parserServices;
    if (!services?.program)
      throw new Error('local/void-promise-reason needs typed linting (parserOptions.projectService)');
    const checker = services.program.getTypeChecker();
    const commentLines = new Set();
    for (const c of context.sourceCode.getAllComments())
      for (let l = c.loc.start.line; l <= c.loc.end.line; l++) commentLines.add(l);
    return {
      UnaryExpression(node) {
        if (node.operator !== 'void') return;
        const line = node.loc.start.line;
        if (commentLines.has(line) || commentLines.has(line - 1)) return;
        const tsNode = services.esTreeNodeToTSNodeMap.get(node.argument);
        if (!isThenable(checker, checker.getTypeAtLocation(tsNode), tsNode)) return;
        context.report({ node, messageId: 'reason' });
      },
    };
  },
};
