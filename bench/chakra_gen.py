#!/usr/bin/python3
"""Chakra execution traces of one data-parallel training iteration, one file per rank.

Writes PREFIX.<rank>.et for ranks 0..N-1 (all ranks alike): per layer a forward compute node
(a chain), then per layer in reverse a backward compute node (twice the forward FLOPs), the
gradients bucketed as DDP does (a bucket closes once it holds --bucket-mb; its ALL_REDUCE
collective depends on the backward node that filled it), and one optimizer compute node after
the last backward node and every all-reduce. Layers split the model's parameters and FLOPs evenly (a simplification: real
layers differ). Compute nodes carry num_ops (FLOPs for the batch) and tensor_size, and with
--tflops also duration_micros at that rate. Wire format (et_def.proto of mlcommons/chakra:
varint-length-prefixed GlobalMetadata, then Node messages): the messages are encoded by the
protobuf library (Debian's python3-protobuf, hence /usr/bin/python3) from a run-time descriptor
of the fields written, an encoder independent of the simulator's hand-written reader.

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


def schema():
    """The subset of et_def.proto (package ChakraProtoMsg) the generator writes, built at run
    time as a descriptor, so that the messages are encoded by the protobuf library itself."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    f = descriptor_pb2.FieldDescriptorProto
    proto = descriptor_pb2.FileDescriptorProto(name="chakra_gen_et.proto",
                                               package="ChakraProtoMsg", syntax="proto3")

    def message(name, fields, oneof=None):
        m = proto.message_type.add(name=name)
        if oneof:
            m.oneof_decl.add(name=oneof)  # fields numbered 9 and up are its members
        for field_name, number, kind, repeated, type_name in fields:
            field = m.field.add(name=field_name, number=number, type=kind,
                                label=f.LABEL_REPEATED if repeated else f.LABEL_OPTIONAL)
            if type_name:
                field.type_name = type_name
            if oneof and number >= 9:
                field.oneof_index = 0  # in a oneof, a zero value is still written

    message("AttributeProto", [("name", 1, f.TYPE_STRING, False, None),
                               ("int64_val", 9, f.TYPE_INT64, False, None),
                               ("bool_val", 27, f.TYPE_BOOL, False, None)], oneof="value")
    message("GlobalMetadata", [("version", 1, f.TYPE_STRING, False, None)])
    message("Node", [("id", 1, f.TYPE_UINT64, False, None),
                     ("name", 2, f.TYPE_STRING, False, None),
                     ("type", 3, f.TYPE_INT32, False, None),  # the NodeType enum's varint
                     ("data_deps", 5, f.TYPE_UINT64, True, None),
                     ("duration_micros", 7, f.TYPE_UINT64, False, None),
                     ("attr", 10, f.TYPE_MESSAGE, True, ".ChakraProtoMsg.AttributeProto")])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    factory = message_factory.MessageFactory(pool)
    return {name: factory.GetPrototype(pool.FindMessageTypeByName("ChakraProtoMsg." + name))
            for name in ("GlobalMetadata", "Node")}


def delimited(message):
    """A message preceded by its length as a varint: the .et stream's framing."""
    from google.protobuf.internal.encoder import _VarintBytes
    payload = message.SerializeToString()
    return _VarintBytes(len(payload)) + payload


def rank_trace(args):
    parameters, flops_per_sample, layers = MODELS[args.model]
    layer_params = parameters // layers
    layer_flops = int(flops_per_sample * args.batch / layers)
    messages = schema()
    out = bytearray(delimited(messages["GlobalMetadata"](version="0.0.4")))
    next_id = 0

    def add(name, node_type, deps, attrs, duration=0):
        nonlocal next_id
        node = messages["Node"](id=next_id, name=name, type=node_type, data_deps=deps,
                                duration_micros=duration)
        for attr_name, value in attrs:
            attr = node.attr.add(name=attr_name)
            if isinstance(value, bool):
                attr.bool_val = value
            else:
                attr.int64_val = value
        out.extend(delimited(node))
        next_id += 1
        return next_id - 1

    def compute(name, flops, deps):
        duration = max(1, round(flops / (args.tflops * 1e12) * 1e6)) if args.tflops > 0 else 0
        attrs = [("num_ops", flops), ("tensor_size", layer_params * 4), ("is_cpu_op", False)]
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
            attrs = [("comm_type", ALL_REDUCE), ("comm_size", bucket), ("is_cpu_op", False)]
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
