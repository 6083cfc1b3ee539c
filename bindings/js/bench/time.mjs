/** Nanoseconds per call: 300 ms of warm-up, then the median of 7 batches of at least 200 ms. */
export function time(call) {
  call();
  const start = performance.now();
  while (performance.now() - start < 300) call();
  const perCall = [];
  for (let b = 0; b < 7; b++) {
    let n = 0;
    const t = performance.now();
    while (performance.now() - t < 200) {
      call();
      n++;
    }
    perCall.push(((performance.now() - t) * 1e6) / n);
  }
  return perCall.sort((a, b) => a - b)[3];
}
