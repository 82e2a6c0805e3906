#!/usr/bin/env python3
"""Accuracy of a served Fashion-MNIST model by how a client encodes the pixels.

Sends the first --count test images of Fashion-MNIST (IDX files, gzip) to a running
`jigsaw serve`, in batches, once per encoding, and prints a Markdown table: the encoding, what
the request declares, the accuracy against the true labels, and how many answers carried a
warning. The model's metadata gives the normalisation (channel_mean, channel_std), so the
"normalised" row is what training saw; the declared raw rows must match it, and the undeclared
raw rows show what a client that ignores the contract gets. Standard library only.

Usage: bench/serve_input_contract.py --url http://127.0.0.1:8000 --model lenet \
         [--data /usr/share/datasets/fashion-mnist] [--count 2000] [--batch 16]
"""

import argparse
import gzip
import json
import struct
import urllib.request


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack(">I", data[:4])[0]
    dims = [struct.unpack(">I", data[4 + 4 * i:8 + 4 * i])[0] for i in range(magic & 0xff)]
    return dims, data[4 + 4 * len(dims):]


def post(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST")
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=16)
    args = parser.parse_args()
    (count, height, width), pixels = read_idx(args.data + "/t10k-images-idx3-ubyte.gz")
    _, labels = read_idx(args.data + "/t10k-labels-idx1-ubyte.gz")
    meta = json.load(urllib.request.urlopen(f"{args.url}/v2/models/{args.model}", timeout=60))
    contract = meta["inputs"][0]["parameters"]
    mean = float(contract["channel_mean"].split(",")[0])
    std = float(contract["channel_std"].split(",")[0])
    plane = height * width
    encodings = [
        ("normalised FP32", "FP32", None, lambda p: (p / 255 - mean) / std),
        ("raw UINT8", "UINT8", None, lambda p: p),
        ("FP32 0..255, declared", "FP32", "0..255", float),
        ("FP32 0..1, declared", "FP32", "0..1", lambda p: p / 255),
        ("FP32 0..255, undeclared", "FP32", None, float),
        ("FP32 0..1, undeclared", "FP32", None, lambda p: p / 255),
    ]
    count = min(args.count, count)
    print(f"| encoding | declared pixel_range | accuracy ({count} test images) | answers with a warning |")
    print("|---|---|---|---|")
    for name, datatype, declared, encode in encodings:
        correct = warned = 0
        for first in range(0, count, args.batch):
            n = min(args.batch, count - first)
            data = [encode(p) for p in pixels[first * plane:(first + n) * plane]]
            tensor = {"name": meta["inputs"][0]["name"], "shape": [n, 1, height, width],
                      "datatype": datatype, "data": data}
            if declared:
                tensor["parameters"] = {"pixel_range": declared}
            reply = post(f"{args.url}/v2/models/{args.model}/infer",
                         {"inputs": [tensor], "outputs": [{"name": "class"}]})
            classes = reply["outputs"][0]["data"]
            correct += sum(1 for i in range(n) if classes[i] == labels[first + i])
            warned += n if "warning" in reply.get("parameters", {}) else 0
        label = declared or ("(default: 0..255)" if datatype == "UINT8" else "(default: normalized)")
        print(f"| {name} | {label} | {correct / count:.3f} | {warned} |")


if __name__ == "__main__":
    main()
