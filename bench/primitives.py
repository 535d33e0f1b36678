#!/usr/bin/env python3
"""Writes a copy of a .glb whose first mesh draws its first primitive COUNT times (the same accessors), a
many-primitive asset for `eval` timings; --no-uvs drops the primitive's texture coordinates and the
materials' textures (no tangent frame, as an untextured character has):
    python3 bench/primitives.py IN.glb COUNT OUT.glb [--no-uvs]"""
import json
import struct
import sys


def main(src, count, dst, no_uvs):
    data = open(src, "rb").read()
    json_len = struct.unpack("<I", data[12:16])[0]
    doc = json.loads(data[20:20 + json_len])
    at = 20 + json_len
    bin_len = struct.unpack("<I", data[at:at + 4])[0]
    binary = data[at + 8:at + 8 + bin_len]
    first = doc["meshes"][0]["primitives"][0]
    if no_uvs:
        for name in [a for a in first["attributes"] if a.startswith("TEXCOORD_")]:
            del first["attributes"][name]
        for material in doc.get("materials", []):
            for key in [k for k, v in material.get("pbrMetallicRoughness", {}).items() if isinstance(v, dict)]:
                del material["pbrMetallicRoughness"][key]
            for key in ("normalTexture", "occlusionTexture", "emissiveTexture"):
                material.pop(key, None)
    doc["meshes"][0]["primitives"] = [first] * count
    text = json.dumps(doc, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    binary += b"\0" * (-len(binary) % 4)
    with open(dst, "wb") as f:
        f.write(struct.pack("<III", 0x46546C67, 2, 28 + len(text) + len(binary)))
        f.write(struct.pack("<II", len(text), 0x4E4F534A) + text)
        f.write(struct.pack("<II", len(binary), 0x004E4942) + binary)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3], "--no-uvs" in sys.argv[4:])
