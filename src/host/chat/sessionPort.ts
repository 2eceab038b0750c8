/** The session store port now lives in the application layer; re-exported for the host's adapters. */
export type { OpenSession, SessionPort } from '../../app/sessionPort';
