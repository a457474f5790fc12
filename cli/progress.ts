/** A one-line progress bar on stderr, drawn only on a terminal: pipes and scripts get nothing. */
export type Progress = { update: (done: number, total: number) => void; finish: () => void };

const WIDTH = 30;
const REDRAW_MS = 50;

export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr): Progress | null {
  if (!stream.isTTY) return null;
  let drawn = false;
  let lastDraw = 0;
  return {
    update(done, total) {
      const now = Date.now();
      if (done < total && now - lastDraw < REDRAW_MS) return;
      lastDraw = now;
      drawn = true;
      const filled = total === 0 ? WIDTH : Math.round((done / total) * WIDTH);
      stream.write(`\r${label} [${"#".repeat(filled)}${"-".repeat(WIDTH - filled)}] ${done}/${total}`);
    },
    finish() {
      if (drawn) stream.write("\n");
    },
  };
}
