#!/usr/bin/env python3
"""Conformance of an inference server with the Open Inference Protocol (KServe v2) REST API.

Written from the published specification (kserve's "Open Inference Protocol" REST document and
its OpenAPI file, and the binary tensor data extension), Python standard library only. Every
check prints PASS or FAIL with what was expected; the exit status is 1 when any check failed.

Checked: health (live, ready, model ready, versioned and unversioned; false as a 4xx), server
metadata, model metadata (schema of every tensor), inference with JSON data flat and nested,
the request id echoed, a requested output subset, versioned inference paths, errors as
{"error": string} with 4xx statuses (malformed JSON, unknown model, unknown version, wrong input
name, wrong shape, unsupported datatype, empty body), 405 for wrong methods, 404 for unknown
paths, parameters holding only strings, numbers and booleans, any Content-Type for a JSON body
(also over 8 KiB), and, when the server lists "binary_tensor_data", binary inputs (header
Inference-Header-Content-Length, parameter binary_data_size) and binary outputs (binary_data per
output, binary_data_output for all). For `jigsaw serve` it also checks what its model metadata
declares: FP16, FP32, FP64, INT64 and UINT8 inputs, raw pixels normalised by the server as the
declared channel_mean / channel_std say, and a body over the limit refused with 413.

Usage:
  bench/kserve_conformance.py --url http://127.0.0.1:8000 --model lenet [--token-file F]
  bench/kserve_conformance.py --jigsaw build/jigsaw --checkpoint OUT/checkpoint.pt
(the second form starts `jigsaw serve --port 0` on 127.0.0.1 itself and stops it afterwards).
"""

import argparse
import http.client
import json
import math
import os
import re
import struct
import subprocess
import sys
import time
import urllib.parse

SPEC_DATATYPES = {"BOOL", "UINT8", "UINT16", "UINT32", "UINT64", "INT8", "INT16", "INT32",
                  "INT64", "FP16", "FP32", "FP64", "BYTES", "BF16"}
PACK = {"FP16": "e", "FP32": "f", "FP64": "d", "INT64": "q", "UINT8": "B", "INT32": "i"}


class Client:
    def __init__(self, url, token=None):
        parsed = urllib.parse.urlparse(url)
        self.host, self.port = parsed.hostname, parsed.port or 80
        self.token = token

    def call(self, method, path, body=None, headers=None, content_type="application/json"):
        connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
        all_headers = dict(headers or {})
        if body is not None and content_type is not None:
            all_headers.setdefault("Content-Type", content_type)
        if self.token:
            all_headers.setdefault("Authorization", "Bearer " + self.token)
        if isinstance(body, str):
            body = body.encode()
        if body is not None:
            all_headers["Content-Length"] = str(len(body))
        connection.request(method, path, body=body, headers=all_headers)
        response = connection.getresponse()
        data = response.read()
        result = (response.status, {k.lower(): v for k, v in response.getheaders()}, data)
        connection.close()
        return result

    def json(self, method, path, body=None, **kwargs):
        status, headers, data = self.call(method, path, body, **kwargs)
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            parsed = ValueError(data[:200])
        return status, headers, parsed


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = []

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print(f"PASS {name}")
        else:
            self.failed.append(name)
            print(f"FAIL {name}: {detail}")
        return ok


def is_parameters(value):
    return isinstance(value, dict) and all(
        isinstance(v, (str, int, float, bool)) and not isinstance(v, (list, dict))
        for v in value.values())


def is_metadata_tensor(t):
    return (isinstance(t, dict) and isinstance(t.get("name"), str)
            and t.get("datatype") in SPEC_DATATYPES and isinstance(t.get("shape"), list)
            and all(isinstance(d, int) and d >= -1 for d in t["shape"]))


def is_error(status, body, low=400, high=499):
    return (low <= status <= high and isinstance(body, dict)
            and isinstance(body.get("error"), str) and body["error"] != "")


def product(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def nest(flat, shape):
    if len(shape) == 1:
        return list(flat)
    step = product(shape[1:])
    return [nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def check_health(c, checks, model, version):
    for path in ("/v2/health/live", "/v2/health/ready"):
        status, _, body = c.json("GET", path)
        key = "live" if path.endswith("live") else "ready"
        checks.check(f"health {path} is 200", status == 200, f"status {status}")
        checks.check(f"health {path} body empty or {{{key!r}: true}}",
                     body is None or body.get(key) is True or body.get("live") is True,
                     repr(body))
    for path in (f"/v2/models/{model}/ready", f"/v2/models/{model}/versions/{version}/ready"):
        status, _, body = c.json("GET", path)
        checks.check(f"model ready {path} is 200", status == 200, f"status {status}")
        checks.check(f"model ready {path} body names the model",
                     body is None or (body.get("name") == model and body.get("ready") is True),
                     repr(body))
    status, _, body = c.json("GET", "/v2/models/no-such-model-x/ready")
    checks.check("model ready of an unknown model is a 4xx (false)", 400 <= status <= 499,
                 f"status {status}")


def check_metadata(c, checks, model):
    server = None
    for path in ("/v2", "/v2/"):
        status, _, body = c.json("GET", path)
        ok = (status == 200 and isinstance(body, dict) and isinstance(body.get("name"), str)
              and isinstance(body.get("version"), str)
              and isinstance(body.get("extensions"), list)
              and all(isinstance(e, str) for e in body["extensions"]))
        checks.check(f"server metadata {path}: name, version, extensions", ok,
                     f"status {status}, {body!r}")
        server = body if ok else server
    status, _, meta = c.json("GET", f"/v2/models/{model}")
    ok = (status == 200 and isinstance(meta, dict) and meta.get("name") == model
          and isinstance(meta.get("platform"), str) and isinstance(meta.get("inputs"), list)
          and isinstance(meta.get("outputs"), list)
          and all(is_metadata_tensor(t) for t in meta["inputs"] + meta["outputs"])
          and all(isinstance(v, str) for v in meta.get("versions", [])))
    checks.check("model metadata: name, platform, inputs and outputs as $metadata_tensor", ok,
                 f"status {status}, {meta!r}"[:300])
    if not ok:
        return server, None, None
    version = (meta.get("versions") or ["1"])[0]
    status, _, versioned = c.json("GET", f"/v2/models/{model}/versions/{version}")
    checks.check("model metadata, versioned path, is the same", status == 200 and
                 versioned == meta, f"status {status}")
    status, _, body = c.json("GET", "/v2/models/no-such-model-x")
    checks.check("model metadata of an unknown model: 4xx {\"error\": string}",
                 is_error(status, body), f"status {status}, {body!r}")
    status, _, body = c.json("GET", f"/v2/models/{model}/versions/no-such-version")
    checks.check("model metadata of an unknown version: 4xx {\"error\": string}",
                 is_error(status, body), f"status {status}, {body!r}")
    return server, meta, version


def request_for(meta, values, datatype=None, parameters=None, batch=1, nested=False):
    spec = meta["inputs"][0]
    shape = [batch if d == -1 else d for d in spec["shape"]]
    data = nest(values, shape) if nested else values
    tensor = {"name": spec["name"], "shape": shape, "datatype": datatype or spec["datatype"],
              "data": data}
    if parameters:
        tensor["parameters"] = parameters
    return {"id": "conformance-1", "inputs": [tensor]}, shape


def check_response(checks, name, status, body, model, expected_outputs):
    ok = (status == 200 and isinstance(body, dict) and body.get("model_name") == model
          and isinstance(body.get("outputs"), list))
    checks.check(f"{name}: 200 with model_name and outputs", ok, f"status {status}, {body!r}"[:300])
    if not ok:
        return False
    outputs = body["outputs"]
    shapes_ok = all(
        isinstance(o.get("name"), str) and o.get("datatype") in SPEC_DATATYPES
        and isinstance(o.get("shape"), list)
        and (isinstance(o.get("data"), list) and len(flatten(o["data"])) == product(o["shape"])
             or "binary_data_size" in o.get("parameters", {}))
        for o in outputs)
    checks.check(f"{name}: outputs are $response_output with data matching their shape", shapes_ok,
                 repr(outputs)[:300])
    checks.check(f"{name}: the outputs asked for, in order",
                 [o.get("name") for o in outputs] == expected_outputs,
                 f"{[o.get('name') for o in outputs]} vs {expected_outputs}")
    checks.check(f"{name}: the request id is echoed", body.get("id") == "conformance-1",
                 repr(body.get("id")))
    checks.check(f"{name}: parameters hold strings, numbers and booleans only",
                 "parameters" not in body or is_parameters(body["parameters"]),
                 repr(body.get("parameters")))
    return True


def flatten(data):
    if isinstance(data, list):
        out = []
        for d in data:
            out.extend(flatten(d))
        return out
    return [data]


def outputs_of(body):
    return {o["name"]: flatten(o["data"]) for o in body["outputs"] if "data" in o}


def close(a, b, tolerance=1e-3):
    return len(a) == len(b) and all(
        abs(x - y) <= tolerance * max(1.0, abs(x), abs(y)) for x, y in zip(a, b))


def check_inference(c, checks, model, meta, version):
    spec = meta["inputs"][0]
    count = product([1 if d == -1 else d for d in spec["shape"]])
    values = [((i * 37) % 101) / 50.0 - 1.0 for i in range(count)]
    request, shape = request_for(meta, values)
    all_outputs = [o["name"] for o in meta["outputs"]]
    status, _, reference = c.json("POST", f"/v2/models/{model}/infer", json.dumps(request))
    if not check_response(checks, "inference (flat JSON data)", status, reference, model,
                          all_outputs):
        return None
    base = outputs_of(reference)
    status, _, body = c.json("POST", f"/v2/models/{model}/versions/{version}/infer",
                             json.dumps(request))
    checks.check("inference, versioned path, answers alike",
                 status == 200 and outputs_of(body) == base, f"status {status}")
    nested, _ = request_for(meta, values, nested=True)
    status, _, body = c.json("POST", f"/v2/models/{model}/infer", json.dumps(nested))
    checks.check("inference with nested data answers as flat data",
                 status == 200 and all(close(outputs_of(body)[k], base[k]) for k in base),
                 f"status {status}")
    subset = dict(request, outputs=[{"name": all_outputs[-1]}])
    status, _, body = c.json("POST", f"/v2/models/{model}/infer", json.dumps(subset))
    check_response(checks, "inference with one requested output", status, body, model,
                   all_outputs[-1:])
    no_id = {"inputs": request["inputs"]}
    status, _, body = c.json("POST", f"/v2/models/{model}/infer", json.dumps(no_id))
    checks.check("inference without an id: 200, no id invented",
                 status == 200 and body.get("id") in (None, ""), f"status {status}, {body!r}"[:200])
    big = json.dumps(request) + " " * 9000
    for content_type in ("text/plain", "application/octet-stream", None):
        status, _, body = c.json("POST", f"/v2/models/{model}/infer", big,
                                 content_type=content_type)
        checks.check(f"a JSON body over 8 KiB with Content-Type {content_type!r} is read",
                     status == 200, f"status {status}, {body!r}"[:200])
    check_inference_errors(c, checks, model, meta, request, shape)
    return values, base


def check_inference_errors(c, checks, model, meta, request, shape):
    path = f"/v2/models/{model}/infer"
    cases = [("malformed JSON", "{\"inputs\": [", 400),
             ("an empty body", "", 400),
             ("no inputs", json.dumps({"id": "x"}), 400)]
    renamed = json.loads(json.dumps(request))
    renamed["inputs"][0]["name"] = "no-such-input-x"
    cases.append(("a wrong input name", json.dumps(renamed), 400))
    reshaped = json.loads(json.dumps(request))
    reshaped["inputs"][0]["shape"] = shape[:-1] + [shape[-1] + 1]
    cases.append(("a shape the model does not take", json.dumps(reshaped), 400))
    retyped = json.loads(json.dumps(request))
    retyped["inputs"][0]["datatype"] = "BYTES"
    cases.append(("an unsupported datatype", json.dumps(retyped), 400))
    short = json.loads(json.dumps(request))
    short["inputs"][0]["data"] = short["inputs"][0]["data"][:-1]
    cases.append(("data shorter than the shape", json.dumps(short), 400))
    unknown_output = dict(request, outputs=[{"name": "no-such-output-x"}])
    cases.append(("an unknown output", json.dumps(unknown_output), 400))
    for name, body, expected in cases:
        status, _, reply = c.json("POST", path, body)
        checks.check(f"inference error, {name}: {expected} {{\"error\": string}}",
                     status == expected and is_error(status, reply), f"status {status}, {reply!r}"[:200])
    status, _, reply = c.json("POST", "/v2/models/no-such-model-x/infer", json.dumps(request))
    checks.check("inference on an unknown model: 404 {\"error\": string}",
                 status == 404 and is_error(status, reply), f"status {status}")
    status, _, reply = c.json("POST", f"/v2/models/{model}/versions/no-such-version/infer",
                              json.dumps(request))
    checks.check("inference on an unknown version: 404 {\"error\": string}",
                 status == 404 and is_error(status, reply), f"status {status}")
    for method, target in (("GET", path), ("PUT", path), ("POST", f"/v2/models/{model}"),
                           ("DELETE", "/v2/health/live"), ("POST", "/v2/health/ready")):
        status, headers, reply = c.json(method, target, "" if method != "GET" else None)
        checks.check(f"{method} {target}: 405 with Allow and {{\"error\": string}}",
                     status == 405 and "allow" in headers and is_error(status, reply),
                     f"status {status}, {reply!r}"[:200])
    status, _, reply = c.json("GET", "/v2/no/such/endpoint")
    checks.check("an unknown path: 404 {\"error\": string}", status == 404 and
                 is_error(status, reply), f"status {status}")


def binary_request(meta, values, datatype, binary_outputs, parameters=None):
    spec = meta["inputs"][0]
    shape = [1 if d == -1 else d for d in spec["shape"]]
    blob = struct.pack("<%d%s" % (len(values), PACK[datatype]), *values)
    tensor = {"name": spec["name"], "shape": shape, "datatype": datatype,
              "parameters": dict(parameters or {}, binary_data_size=len(blob))}
    request = {"id": "conformance-1", "inputs": [tensor]}
    request.update(binary_outputs)
    head = json.dumps(request).encode()
    return head + blob, len(head)


def split_binary(checks, name, headers, data, meta):
    length = headers.get("inference-header-content-length")
    if not checks.check(f"{name}: Inference-Header-Content-Length present", length is not None,
                        repr(headers)):
        return None
    head = json.loads(data[:int(length)])
    offset = int(length)
    values = {}
    for output in head["outputs"]:
        size = output.get("parameters", {}).get("binary_data_size")
        if size is None:
            values[output["name"]] = flatten(output["data"])
            continue
        fmt = "<%d%s" % (size // struct.calcsize(PACK[output["datatype"]]), PACK[output["datatype"]])
        values[output["name"]] = list(struct.unpack(fmt, data[offset:offset + size]))
        offset += size
    checks.check(f"{name}: body = JSON + every binary output, nothing more", offset == len(data),
                 f"{offset} vs {len(data)}")
    return head, values


def check_binary(c, checks, model, meta, values, base):
    path = f"/v2/models/{model}/infer"
    body, length = binary_request(meta, values, "FP32", {})
    status, _, reply = c.json("POST", path, body,
                              headers={"Inference-Header-Content-Length": str(length)},
                              content_type="application/octet-stream")
    checks.check("binary input (FP32, binary_data_size) answers as JSON data",
                 status == 200 and all(close(outputs_of(reply)[k], base[k]) for k in base),
                 f"status {status}, {reply!r}"[:200])
    status, _, reply = c.json("POST", path, body[:-1],
                              headers={"Inference-Header-Content-Length": str(length)},
                              content_type="application/octet-stream")
    checks.check("binary input one byte short: 400 {\"error\": string}",
                 status == 400 and is_error(status, reply), f"status {status}")
    names = [o["name"] for o in meta["outputs"]]
    request, _ = request_for(meta, values)
    request["outputs"] = [{"name": names[0], "parameters": {"binary_data": True}}] + [
        {"name": n} for n in names[1:]]
    status, headers, data = c.call("POST", path, json.dumps(request))
    if checks.check("binary_data on one output: 200", status == 200, f"status {status}"):
        split = split_binary(checks, "binary_data on one output", headers, data, meta)
        if split:
            head, got = split
            checks.check("binary_data on one output: binary_data_size and no data",
                         "binary_data_size" in head["outputs"][0].get("parameters", {})
                         and "data" not in head["outputs"][0], repr(head["outputs"][0])[:200])
            checks.check("binary_data on one output: the same values as JSON",
                         all(close(got[k], base[k]) for k in base), "values differ")
    request, _ = request_for(meta, values)
    request["parameters"] = {"binary_data_output": True}
    status, headers, data = c.call("POST", path, json.dumps(request))
    if checks.check("binary_data_output: 200", status == 200, f"status {status}"):
        split = split_binary(checks, "binary_data_output", headers, data, meta)
        if split:
            head, got = split
            checks.check("binary_data_output: every output binary, the same values",
                         all("binary_data_size" in o.get("parameters", {}) for o in head["outputs"])
                         and all(close(got[k], base[k]) for k in base), "values differ")


def check_input_contract(c, checks, model, meta, base):
    """jigsaw serve's declared input contract: datatypes and raw pixels normalised by it."""
    spec = meta["inputs"][0]
    p = spec.get("parameters", {})
    if not checks.check("model metadata declares the input contract (channel_mean, channel_std,"
                        " pixel_range)", all(k in p for k in ("channel_mean", "channel_std",
                                                              "pixel_range")), repr(p)[:300]):
        return
    mean = [float(x) for x in p["channel_mean"].split(",")]
    std = [float(x) for x in p["channel_std"].split(",")]
    shape = [1 if d == -1 else d for d in spec["shape"]]
    plane = product(shape[2:])
    pixels = [(i * 53) % 256 for i in range(product(shape))]
    normalised = [(px / 255.0 - mean[(i // plane) % shape[1]]) / std[(i // plane) % shape[1]]
                  for i, px in enumerate(pixels)]
    path = f"/v2/models/{model}/infer"
    request, _ = request_for(meta, normalised)
    status, _, reference = c.json("POST", path, json.dumps(request))
    checks.check("normalised FP32 input: 200", status == 200, f"status {status}")
    if status != 200:
        return
    expected = outputs_of(reference)
    tolerance = {"FP16": 2e-2}
    cases = [("FP64 normalised", normalised, "FP64", None),
             ("FP16 normalised", normalised, "FP16", None),
             ("UINT8 raw pixels", pixels, "UINT8", None),
             ("INT64 raw pixels", pixels, "INT64", None),
             ("FP32 pixels 0..255", [float(x) for x in pixels], "FP32", {"pixel_range": "0..255"}),
             ("FP32 pixels 0..1", [x / 255.0 for x in pixels], "FP32", {"pixel_range": "0..1"})]
    for name, data, datatype, parameters in cases:
        request, _ = request_for(meta, data, datatype=datatype, parameters=parameters)
        status, _, body = c.json("POST", path, json.dumps(request))
        tol = tolerance.get(datatype, 1e-3)
        checks.check(f"{name}: the model sees the normalised input (same logits)",
                     status == 200 and all(close(outputs_of(body)[k], expected[k], tol)
                                           for k in expected if k != "class"),
                     f"status {status}, {body!r}"[:200])
        body_bytes, length = binary_request(meta, data, datatype, {}, parameters)
        status, _, body = c.json("POST", path, body_bytes,
                                 headers={"Inference-Header-Content-Length": str(length)},
                                 content_type="application/octet-stream")
        checks.check(f"{name}, binary: the same logits",
                     status == 200 and all(close(outputs_of(body)[k], expected[k], tol)
                                           for k in expected if k != "class"),
                     f"status {status}, {body!r}"[:200])
    request, _ = request_for(meta, [300] * len(pixels), datatype="FP32",
                             parameters={"pixel_range": "0..255"})
    status, _, body = c.json("POST", path, json.dumps(request))
    checks.check("pixels outside the declared range: 400 {\"error\": string}",
                 status == 400 and is_error(status, body), f"status {status}")
    request, _ = request_for(meta, [float(x) for x in pixels])
    status, _, body = c.json("POST", path, json.dumps(request))
    checks.check("raw pixels sent as normalised: answered with a warning parameter",
                 status == 200 and "warning" in body.get("parameters", {}), repr(body)[:200])


def check_limits(c, checks, model):
    connection = http.client.HTTPConnection(c.host, c.port, timeout=60)
    connection.putrequest("POST", f"/v2/models/{model}/infer")
    connection.putheader("Content-Length", str(1 << 30))
    if c.token:
        connection.putheader("Authorization", "Bearer " + c.token)
    connection.endheaders()  # no body byte is sent: the server must answer on the head alone
    response = connection.getresponse()
    data = response.read()
    connection.close()
    try:
        body = json.loads(data)
    except ValueError:
        body = None
    checks.check("a 1 GiB Content-Length: 413 {\"error\": string} before the body",
                 response.status == 413 and is_error(413, body), f"status {response.status}")


def start_server(jigsaw, checkpoint, extra):
    process = subprocess.Popen([jigsaw, "serve", "--model", checkpoint, "--port", "0"] + extra,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300
    while time.time() < deadline:
        line = process.stderr.readline()
        if not line:
            break
        match = re.search(r"model '([^']+)'.*http://([0-9.]+):(\d+)/v2", line)
        if match:
            return process, f"http://{match.group(2)}:{match.group(3)}", match.group(1)
    process.kill()
    sys.exit("jigsaw serve did not start")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", help="server, e.g. http://127.0.0.1:8000")
    parser.add_argument("--model", help="served model name")
    parser.add_argument("--token-file", help="bearer token for the server")
    parser.add_argument("--jigsaw", help="start `JIGSAW serve` on this checkpoint instead")
    parser.add_argument("--checkpoint")
    args = parser.parse_args()
    token = open(args.token_file).read().strip() if args.token_file else None
    process = None
    if args.jigsaw:
        extra = ["--token-file", args.token_file] if args.token_file else []
        process, args.url, args.model = start_server(args.jigsaw, args.checkpoint, extra)
    if not args.url or not args.model:
        parser.error("give --url and --model, or --jigsaw and --checkpoint")
    try:
        checks = Checks()
        c = Client(args.url, token)
        server, meta, version = check_metadata(c, checks, args.model)
        check_health(c, checks, args.model, version or "1")
        if meta:
            result = check_inference(c, checks, args.model, meta, version)
            if result and server and "binary_tensor_data" in server.get("extensions", []):
                check_binary(c, checks, args.model, meta, *result)
            if result:
                check_input_contract(c, checks, args.model, meta, result[1])
        check_limits(c, checks, args.model)
    finally:
        if process:
            process.terminate()
            process.wait(timeout=30)
    total = checks.passed + len(checks.failed)
    print(f"\n{checks.passed}/{total} checks passed" +
          ("" if not checks.failed else "; failed: " + ", ".join(checks.failed)))
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
