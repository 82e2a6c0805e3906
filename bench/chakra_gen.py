#!/usr/bin/env python3
"""Chakra execution traces of one data-parallel training iteration, one file per rank.

Writes PREFIX.<rank>.et for ranks 0..N-1 (all ranks alike): per layer a forward compute node
(a chain), then per layer in reverse a backward compute node (twice the forward FLOPs), the
gradients bucketed as DDP does (a bucket closes once it holds --bucket-mb; its ALL_REDUCE
collective depends on the backward node that filled it), and an optimizer compute node after
every all-reduce. Layers split the model's parameters and FLOPs evenly (a simplification: real
layers differ). Compute nodes carry num_ops (FLOPs for the batch) and tensor_size, and with
--tflops also duration_micros at that rate. Wire format (et_def.proto of mlcommons/chakra:
varint-length-prefixed GlobalMetadata, then Node messages) is written by hand, so only the
Python standard library is needed.

Usage: chakra_gen.py --ranks 128 --out DIR/resnet50 [--model resnet50] [--batch 32]
       [--bucket-mb 25] [--tflops 0]
"""
import argparse
import os

# name: (parameters, forward FLOPs per sample, layers)
MODELS = {
    "resnet50": (25_557_032, 4.1e9, 50),   # He et al. 2016, 224x224
    "vgg16": (138_357_544, 15.5e9, 16),    # Simonyan & Zisserman 2015
    "bert-base": (110_000_000, 22.5e9, 12),  # 128 tokens per sample
    "gpt2": (124_000_000, 2 * 124e6 * 1024, 12),  # 1024 tokens, 2 FLOPs per parameter and token
}

COMP_NODE, COMM_COLL_NODE = 4, 7
ALL_REDUCE = 0


def varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def number(field, value):
    return key(field, 0) + varint(value)


def length(field, payload):
    return key(field, 2) + varint(len(payload)) + payload


def attribute(name, value, value_field=9):  # 9: int64_val, 27: bool_val
    return length(10, length(1, name.encode()) + number(value_field, value))


def node(node_id, name, node_type, deps=(), attrs=b"", duration=0):
    message = number(1, node_id) + length(2, name.encode()) + number(3, node_type)
    if deps:
        message += length(5, b"".join(varint(d) for d in deps))  # packed data_deps
    if duration:
        message += number(7, duration)
    return varint(len(message) + len(attrs)) + message + attrs


def rank_trace(args):
    parameters, flops_per_sample, layers = MODELS[args.model]
    layer_params = parameters // layers
    layer_flops = int(flops_per_sample * args.batch / layers)
    out = bytearray()
    meta = length(1, b"0.0.4")
    out += varint(len(meta)) + meta
    next_id = 0

    def add(name, node_type, deps, attrs=b"", duration=0):
        nonlocal next_id
        out.extend(node(next_id, name, node_type, deps, attrs, duration))
        next_id += 1
        return next_id - 1

    def compute(name, flops, deps):
        duration = max(1, round(flops / (args.tflops * 1e12) * 1e6)) if args.tflops > 0 else 0
        attrs = attribute("num_ops", flops) + attribute("tensor_size", layer_params * 4) + \
            attribute("is_cpu_op", 0, 27)
        return add(name, COMP_NODE, deps, attrs, duration)

    previous = []
    for layer in range(layers):
        previous = [compute(f"fwd_layer{layer}", layer_flops, previous)]
    bucket_limit = int(args.bucket_mb * 1e6)
    bucket, reduces = 0, []
    for layer in reversed(range(layers)):
        previous = [compute(f"bwd_layer{layer}", 2 * layer_flops, previous)]
        bucket += layer_params * 4
        if bucket >= bucket_limit or layer == 0:
            attrs = attribute("comm_type", ALL_REDUCE) + attribute("comm_size", bucket) + \
                attribute("is_cpu_op", 0, 27)
            reduces.append(add(f"allreduce_bucket{len(reduces)}_to_layer{layer}", COMM_COLL_NODE,
                               previous, attrs))
            bucket = 0
    compute("optimizer", 2 * parameters, previous + reduces)
    return bytes(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--out", required=True, help="PREFIX: writes PREFIX.<rank>.et")
    parser.add_argument("--model", default="resnet50", choices=sorted(MODELS))
    parser.add_argument("--batch", type=int, default=32, help="samples per rank")
    parser.add_argument("--bucket-mb", type=float, default=25, help="DDP bucket (MB)")
    parser.add_argument("--tflops", type=float, default=0,
                        help="also write duration_micros at this rate (0: num_ops only)")
    args = parser.parse_args()
    if args.ranks < 1 or args.batch < 1 or args.bucket_mb <= 0:
        parser.error("--ranks, --batch and --bucket-mb must be positive")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    trace = rank_trace(args)
    for rank in range(args.ranks):
        with open(f"{args.out}.{rank}.et", "wb") as f:
            f.write(trace)
    print(f"chakra_gen: {args.ranks} ranks x {len(trace)} bytes: {args.out}.<rank>.et")


if __name__ == "__main__":
    main()
