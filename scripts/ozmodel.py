#!/usr/bin/python3
"""Reads an othello-zero model file (written by `othello-zero export`) into torch.

Usage: scripts/ozmodel.py MODEL.ozm               # prints the header and every tensor
As a module:
    import ozmodel
    header, tensors = ozmodel.load("model.ozm")   # tensors: {name: torch.Tensor}

The layout (nn/model_file.h): b"OZMODEL\\0", u32 version, u32 header length, the JSON
header, zero padding to a multiple of 64, float32 data, u32 CRC-32 of all before it.
Batch normalisation is folded into the convolutions. Needs Debian's python3-torch.
"""
import json
import struct
import sys
import zlib

MAGIC = b"OZMODEL\0"
VERSION = 1


class ModelFileError(Exception):
    pass


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 16 or data[:8] != MAGIC:
        raise ModelFileError(f"{path}: not an othello-zero model (bad magic)")
    version, header_bytes = struct.unpack_from("<II", data, 8)
    if version != VERSION:
        raise ModelFileError(f"{path}: format version {version} (this reader knows {VERSION})")
    start = (16 + header_bytes + 63) // 64 * 64
    if len(data) < start + 4:
        raise ModelFileError(f"{path}: truncated")
    (crc,) = struct.unpack_from("<I", data, len(data) - 4)
    if zlib.crc32(data[:-4]) != crc:
        raise ModelFileError(f"{path}: checksum mismatch: the file is corrupted or truncated")
    header = json.loads(data[16:16 + header_bytes])
    import torch
    tensors = {}
    for t in header["tensors"]:
        count = 1
        for d in t["shape"]:
            count *= d
        offset = start + t["offset"]
        if t["offset"] < 0 or count < 1 or offset + 4 * count > len(data) - 4:
            raise ModelFileError(f"{path}: tensor {t['name']} lies outside the file")
        buffer = bytearray(data[offset:offset + 4 * count])
        tensors[t["name"]] = torch.frombuffer(buffer, dtype=torch.float32).reshape(t["shape"])
    return header, tensors


def main():
    if len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    try:
        header, tensors = load(sys.argv[1])
    except (OSError, ModelFileError) as e:
        sys.exit(f"error: {e}")
    print(json.dumps({k: v for k, v in header.items() if k != "tensors"}))
    for name, tensor in tensors.items():
        print(f"{name} {list(tensor.shape)} sum={tensor.double().sum().item():.6f}")


if __name__ == "__main__":
    main()
