/**
 * What membership refuses, as types the node's wiring can tell apart: a refused join is fatal (the
 * process exits 1 with the message), a master that does not answer is not (joins and metadata
 * writes answer 503 naming it until it is back).
 */
import type { ForgetProblem, RemoveProblem } from './cluster-state';

/** The cluster will not take this node: its id is held elsewhere, it asked a node that is not the master, their protocols differ, or it lacks the cluster's secret. */
export class JoinRefusedError extends Error {
  constructor(
    readonly reason: 'node-id-taken' | 'address-taken' | 'invalid-member' | 'not-master' | 'protocol-version' | 'unauthenticated',
    message: string,
  ) {
    super(message);
    this.name = 'JoinRefusedError';
  }
}

/** The cluster state says another node already has this node's id at a different gRPC address. */
export class NodeIdTakenError extends JoinRefusedError {
  constructor(
    readonly nodeId: string,
    /** The gRPC address the state holds the id at. */
    readonly heldAt: string,
    /** The gRPC address this node tried to join with. */
    readonly address: string,
  ) {
    super(
      'node-id-taken',
      `node id "${nodeId}" is already taken in this cluster by the node at ${heldAt} (this node is at ${address}): ` +
        `start this node with another cluster.node_id, or start it at ${heldAt}`,
    );
    this.name = 'NodeIdTakenError';
  }
}

/** The master (seeds[0]) does not answer, so a join (or a change only it may decide) cannot be made now. */
export class MasterUnavailableError extends Error {
  constructor(
    /** The master's gRPC address (seeds[0]). */
    readonly master: string,
    /** Its node id when the state knows it. */
    readonly masterId: string | null,
    what: string,
    cause?: string,
  ) {
    const name = masterId === null ? `at ${master}` : `${masterId} at ${master}`;
    super(
      `${what}: the master ${name} does not answer${cause === undefined ? '' : ` (${cause})`}. ` +
        'Check that the master runs and listens there, and that every node has the same cluster.seeds, the master first',
    );
    this.name = 'MasterUnavailableError';
  }
}

/** A change only the master decides was asked of another node. */
export class NotMasterError extends Error {
  constructor(
    readonly master: string,
    what: string,
  ) {
    super(`${what} is decided by the master (${master}, the first of cluster.seeds); ask it there`);
    this.name = 'NotMasterError';
  }
}

/** An operator's remove that cannot be done: the node is unknown, already removed, or the last one in the ring. */
export class RemoveRefusedError extends Error {
  constructor(
    readonly reason: RemoveProblem,
    readonly nodeId: string,
  ) {
    super(
      reason === 'unknown-node'
        ? `node "${nodeId}" is not a member of this cluster`
        : reason === 'already-removed'
          ? `node "${nodeId}" was already removed`
          : `node "${nodeId}" is the last node in the ring; a cluster needs one to place data on`,
    );
    this.name = 'RemoveRefusedError';
  }
}

/** An operator's forget that cannot be done: the node is unknown, not removed, its removal not yet in force, or it is up. */
export class ForgetRefusedError extends Error {
  constructor(
    readonly reason: ForgetProblem | 'up',
    readonly nodeId: string,
    /** For `removal-pending`: when the ring epoch without it starts. */
    effectiveFrom?: string,
  ) {
    super(
      reason === 'unknown-node'
        ? `node "${nodeId}" is not a member of this cluster`
        : reason === 'not-removed'
          ? `node "${nodeId}" is not removed: remove it first (trawl cluster remove ${nodeId}), then forget it once it is down`
          : reason === 'removal-pending'
            ? `node "${nodeId}" is removed, but new data goes to it until its removal takes effect at ${effectiveFrom ?? 'the next ring epoch'}; forget it after that`
            : `node "${nodeId}" is up (or not yet seen down, within cluster.failure_timeout): only a node that is down can be forgotten; stop it first`,
    );
    this.name = 'ForgetRefusedError';
  }
}
