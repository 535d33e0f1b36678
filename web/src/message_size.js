// The bytes a message between the page and a worker carries, about as structured clone carries them: typed
// arrays and ArrayBuffers by their bytes, strings by their length, numbers and booleans as 8 bytes, objects and
// arrays by their keys and values. For the tests' and benchmarks' bound on what a moment posts.
export function messageBytes(x) {
  if (x === null || x === undefined) return 0;
  if (ArrayBuffer.isView(x)) return x.byteLength;
  if (x instanceof ArrayBuffer) return x.byteLength;
  if (typeof x === 'string') return x.length;
  if (typeof x !== 'object') return 8;
  let n = 0;
  if (Array.isArray(x)) { for (const v of x) n += messageBytes(v); return n; }
  for (const [k, v] of Object.entries(x)) n += k.length + messageBytes(v);
  return n;
}
