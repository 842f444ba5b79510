// What the query checks know of a function or aggregate: its arity, how its call is written, and the
// names other query languages give it. It sits beside the implementation in the family file; the
// registries (index.ts here and in query/aggregates) collect them for query/syntax.

/** A name another query language uses: E004 suggests `suggestion` (by default the function's own name). */
export type Alias = string | { readonly name: string; readonly suggestion: string };

export interface FunctionSpec {
  readonly min: number;
  /** Infinity for variadic functions. */
  readonly max: number;
  /** How the call is written, for messages and suggestions. */
  readonly signature: string;
  readonly aliases?: readonly Alias[];
}

type NameOf<F> = F extends unknown ? keyof F : never;
type DefinitionOf<F> = F extends unknown ? F[keyof F] : never;

/**
 * The families' definitions keyed in the order of `names` (the order messages list them). Its type
 * holds only the names some family defines, so a registry typed `Record<Name, Definition>` fails to
 * compile when a name lacks a definition; a name defined twice fails at load.
 */
export function inNameOrder<N extends string, F extends object>(
  what: string,
  names: readonly N[],
  families: readonly F[],
): Record<N & NameOf<F>, DefinitionOf<F>> {
  const defined = new Map<string, DefinitionOf<F>>();
  for (const family of families) {
    for (const [name, definition] of Object.entries(family) as [string, DefinitionOf<F>][]) {
      if (defined.has(name)) throw new Error(`${what} ${name} is defined twice`);
      defined.set(name, definition);
    }
  }
  const out = {} as Record<string, DefinitionOf<F>>;
  for (const name of names) {
    const definition = defined.get(name);
    if (definition === undefined) throw new Error(`${what} ${name} has no definition`);
    out[name] = definition;
  }
  return out as Record<N & NameOf<F>, DefinitionOf<F>>;
}
