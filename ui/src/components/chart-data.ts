/**
 * An aggregate result (columns and rows) as chart series: the first column that is not numeric
 * labels the points (the first column when all are numbers), each numeric column is a series. With two key columns (`by bin(_time, 5m),
 * host`), the second splits the first numeric column into one series per value.
 */
export interface Aggregate {
  columns: string[];
  rows: unknown[][];
}

export interface Series {
  labels: string[];
  datasets: { label: string; data: (number | null)[] }[];
}

function isNumeric(rows: unknown[][], column: number): boolean {
  const present = rows.map((row) => row[column]).filter((value) => value !== null && value !== undefined);
  return present.length > 0 && present.every((value) => typeof value === 'number');
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

function labelText(value: unknown): string {
  if (typeof value === 'string' && ISO_TIME.test(value)) return value.slice(0, 19).replace('T', ' ');
  return value === null || value === undefined ? '(null)' : String(value);
}

export function toSeries({ columns, rows }: Aggregate): Series {
  const numeric = columns.map((_, index) => isNumeric(rows, index));
  // Every column numeric (`stats count() by status`): the first is the key, as `stats` puts keys first.
  if (columns.length >= 2 && numeric.every(Boolean)) numeric[0] = false;
  const keys = columns.map((_, index) => index).filter((index) => !numeric[index]);
  const values = columns.map((_, index) => index).filter((index) => numeric[index]);
  if (values.length === 0) return { labels: [], datasets: [] };
  if (keys.length >= 2) {
    const [labelColumn, splitColumn] = keys as [number, number];
    const valueColumn = values[0]!;
    const labels = [...new Set(rows.map((row) => labelText(row[labelColumn])))];
    const position = new Map(labels.map((label, index) => [label, index]));
    const bySplit = new Map<string, (number | null)[]>();
    for (const row of rows) {
      const split = labelText(row[splitColumn]);
      if (!bySplit.has(split))
        bySplit.set(
          split,
          labels.map(() => null),
        );
      bySplit.get(split)![position.get(labelText(row[labelColumn]))!] = row[valueColumn] as number;
    }
    return { labels, datasets: [...bySplit].map(([label, data]) => ({ label, data })) };
  }
  const labelColumn = keys[0];
  return {
    labels: rows.map((row, index) => (labelColumn === undefined ? String(index + 1) : labelText(row[labelColumn]))),
    datasets: values.map((column) => ({ label: columns[column]!, data: rows.map((row) => row[column] as number | null) })),
  };
}

/** The one number of a `stat` panel: the first numeric value of the first row. */
export function statValue({ columns, rows }: Aggregate): number | null {
  const first = rows[0];
  if (first === undefined) return null;
  const index = columns.findIndex((_, column) => typeof first[column] === 'number');
  return index < 0 ? null : (first[index] as number);
}
