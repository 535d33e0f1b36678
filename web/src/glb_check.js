// The .glb container checks of the library's loader (src/gltf/gltf_parse.c, parse_glb and load_all), in the
// same words, so a truncated or damaged file gets the message `skinframe` prints for it ("glb.length: header
// says 50116 bytes, the file has 25058") rather than a decoder's exception. The browser test compares the two
// on damaged copies of a staged asset. Returns null when the container is sound (the JSON is the loader's).
const JSON_CHUNK = 0x4e4f534a, MAGIC = 0x46546c67;

export function glbContainerProblem(bytes) {
  const size = bytes.length;
  const le32 = (at) => (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24)) >>> 0;
  if (size < 4 || le32(0) !== MAGIC) {
    let k = 0;
    while (k < size && ' \n\r\t'.includes(String.fromCharCode(bytes[k]))) k++;
    if (k < size && bytes[k] === 0xef) k += 3; // UTF-8 byte order mark
    return k >= size || bytes[k] !== 0x7b ? 'file: neither a .glb (magic "glTF") nor JSON starting with \'{\'' : null;
  }
  if (size < 12) return `glb.header: file of ${size} bytes is shorter than the 12-byte header`;
  const version = le32(4), length = le32(8);
  if (version !== 2) return `glb.version: ${version} is not 2`;
  if (length > size) return `glb.length: header says ${length} bytes, the file has ${size}`;
  if (length < 20) return `glb.length: ${length} bytes leave no room for the JSON chunk`;
  let pos = 12, chunk = 0, json = false;
  while (pos + 8 <= length) {
    const clen = le32(pos), ctype = le32(pos + 4);
    if (clen > length - pos - 8) return `glb.chunks: chunk ${chunk} of ${clen} bytes at offset ${pos} runs past the end (${length})`;
    if (chunk === 0) {
      if (ctype !== JSON_CHUNK) return 'glb.chunks: the first chunk is not JSON';
      json = true;
    }
    pos += 8 + clen;
    chunk++;
  }
  return json ? null : 'glb.chunks: no JSON chunk';
}
