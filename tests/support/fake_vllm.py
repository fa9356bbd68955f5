"""Stands in for the `vllm` executable in launcher tests: `serve CKPT --served-model-name M --host H --port P …`
starts the stub OpenAI server (scripted mode) under that name; every other flag is accepted and ignored.

FAKE_VLLM_STARTUP_S delays readiness (as loading weights does); FAKE_VLLM_EXIT_CODE makes it fail at start
after printing a line, as vLLM does on a bad checkpoint.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from tests.support.openai_stub_server import StubServer


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="vllm")
    parser.add_argument("command", choices=["serve"])
    parser.add_argument("checkpoint")
    parser.add_argument("--served-model-name", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args, ignored = parser.parse_known_args(argv)
    print(f"fake vllm: serving {args.checkpoint} as {args.served_model_name}; ignoring {ignored}", flush=True)
    exit_code = os.environ.get("FAKE_VLLM_EXIT_CODE")
    if exit_code:
        print(f"fake vllm: failing on purpose with {exit_code}", flush=True)
        return int(exit_code)
    time.sleep(float(os.environ.get("FAKE_VLLM_STARTUP_S", "0")))
    StubServer(model_name=args.served_model_name, host=args.host, port=args.port).serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
