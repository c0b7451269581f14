"""A stand-in for `agent-tools serve --stdio` that misbehaves on request, for the clients' failure tests: run as
`python stand_in_server.py [--start-delay SECONDS] [--ignore-eof]`. Each request's command says what it does:

    echo              answers ok with its params and this process's pid as data
    sleep             answers like echo after params["seconds"]
    raw               writes params["hex"] (bytes, hex-encoded) as one line instead of an answer
    answer            writes params["answer"] with the request's id as the answer
    big               answers ok with a data string that makes the line exactly params["bytes"] long (newline not
                      counted)
    die               leaves a child holding this process's stdout for params["hold"] seconds, then exits at once
                      without answering (a server that died while its output stays open a little longer)
    hang              never answers
"""

import json
import os
import subprocess
import sys
import threading
import time

out_lock = threading.Lock()


def write(data):
    with out_lock:
        sys.stdout.buffer.write(data + b"\n")
        sys.stdout.buffer.flush()


def answer(request_id, data):
    write(json.dumps({"id": request_id, "status": "ok", "data": data,
                      "meta": {"backend": "stand-in", "duration_ms": 0.5}}).encode())


def handle(request):
    request_id, command, params = request["id"], request["command"], request.get("params") or {}
    if command == "echo":
        answer(request_id, {"params": params, "pid": os.getpid()})
    elif command == "sleep":
        time.sleep(params["seconds"])
        answer(request_id, {"params": params, "pid": os.getpid()})
    elif command == "raw":
        write(bytes.fromhex(params["hex"]))
    elif command == "answer":
        write(json.dumps(dict(params["answer"], id=request_id)).encode())
    elif command == "big":
        empty = json.dumps({"id": request_id, "status": "ok", "data": ""}).encode()
        write(json.dumps({"id": request_id, "status": "ok", "data": "x" * (params["bytes"] - len(empty))}).encode())
    elif command == "die":
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(%r)" % params["hold"]], stdout=sys.stdout)
        os._exit(3)
    elif command == "hang":
        pass


def main():
    args = sys.argv[1:]
    if "--start-delay" in args:
        time.sleep(float(args[args.index("--start-delay") + 1]))  # a JVM (or a build) that takes its time
    for line in sys.stdin.buffer:
        threading.Thread(target=handle, args=(json.loads(line),), daemon=True).start()
    if "--ignore-eof" in args:
        time.sleep(3600)  # a server that does not end at end of input


if __name__ == "__main__":
    main()
