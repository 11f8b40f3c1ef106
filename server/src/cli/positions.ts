// UTF-16 offsets as people and tools count places in a file: 1-based lines and columns, columns
// in UTF-16 code units (what VS Code, ESLint and SARIF's default `columnKind` use).

export interface Place {
  line: number;
  column: number;
}

export class LineIndex {
  /** Offset at which each line starts. */
  private readonly starts: number[] = [0];

  constructor(text: string) {
    for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) this.starts.push(at + 1);
  }

  placeOf(offset: number): Place {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.starts[middle] <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - this.starts[low] + 1 };
  }
}
