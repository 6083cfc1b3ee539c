/** CPU time of the process so far, in nanoseconds. */
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1e3;
};

/**
 * CPU nanoseconds per call: 300 ms of warm-up, then the median of 7 batches of at least 200 ms.
 * CPU time of the process (`process.cpuUsage`: every thread of it, so the engine's own work, such as
 * collecting garbage, counts) rather than the wall clock: on a shared machine a process that waits
 * for a core is not charged for the wait. bench/native times the native library the same way.
 */
export function time(call) {
  call();
  const start = performance.now();
  while (performance.now() - start < 300) call();
  const perCall = [];
  for (let b = 0; b < 7; b++) {
    let n = 0;
    const t = performance.now();
    const c = cpu();
    while (performance.now() - t < 200) {
      call();
      n++;
    }
    perCall.push((cpu() - c) / n);
  }
  return perCall.sort((a, b) => a - b)[3];
}

/**
 * `time` for an async `batch` of `count` calls (awaited one after another): CPU nanoseconds per
 * call, the median of 7 batches of at least 200 ms after 300 ms of warm-up.
 */
export async function timeAsync(batch, count) {
  await batch();
  const start = performance.now();
  while (performance.now() - start < 300) await batch();
  const perCall = [];
  for (let b = 0; b < 7; b++) {
    let n = 0;
    const t = performance.now();
    const c = cpu();
    while (performance.now() - t < 200) {
      await batch();
      n += count;
    }
    perCall.push((cpu() - c) / n);
  }
  return perCall.sort((a, b) => a - b)[3];
}
