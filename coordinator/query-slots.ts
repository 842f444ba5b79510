/**
 * The node's query slots (`query.max_concurrent`): one for each query this node coordinates and
 * one for each fragment it runs for another coordinator, so that fragments arriving on the gRPC
 * port cannot crowd out, or pile up beside, the node's own queries. A slot is held until the
 * work really ends (a canceled query keeps it until its scan has stopped).
 */
export class QuerySlots {
  private taken = 0;

  constructor(private readonly capacity: () => number) {}

  get running(): number {
    return this.taken;
  }

  get limit(): number {
    return this.capacity();
  }

  /** Takes a slot: its release (idempotent), or null when every slot is taken. */
  tryTake(): (() => void) | null {
    if (this.taken >= this.capacity()) return null;
    this.taken++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.taken--;
    };
  }
}
