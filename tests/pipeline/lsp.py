"""A minimal Language Server Protocol client that drives the pinned yaml-language-server (npm)
over stdio, as an editor does: initialize, settings, didOpen, publishDiagnostics, completion.

The editor tests use it to see exactly what an editor shows for a content file, rather than
what we believe the schemas mean. Messages are JSON-RPC with a Content-Length header; the
server also asks the client things (its settings, capability registration) and waits for
the answers, so every request from the server is answered here.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

from tests.repo import LAYOUT

SERVER = LAYOUT.node_modules / "yaml-language-server" / "bin" / "yaml-language-server"
TIMEOUT_S = 30  # a generous bound on any one answer; the server answers in milliseconds

# The settings every test editor has: no schema store (it would fetch a catalogue from the
# network), no Kubernetes schemas, validation and completion on.
BASE_SETTINGS: dict[str, Any] = {
    "validate": True,
    "completion": True,
    "hover": True,
    "schemaStore": {"enable": False},
    "kubernetesCRDStore": {"enable": False},
}


class LanguageServer:
    """One yaml-language-server process for one workspace folder."""

    def __init__(self, workspace: Path, settings: dict[str, Any] | None = None) -> None:
        self.workspace = workspace
        self.settings = {**BASE_SETTINGS, **(settings or {})}
        self._process = subprocess.Popen(
            ["node", str(SERVER), "--stdio"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        self._next_id = 0
        self._answers: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._diagnostics: dict[str, queue.Queue[list[dict[str, Any]]]] = {}
        self._lock = threading.Lock()
        self._configured = threading.Event()
        self._version = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.request("initialize", {
            "processId": None,
            "rootUri": workspace.as_uri(),
            "workspaceFolders": [{"uri": workspace.as_uri(), "name": workspace.name}],
            "capabilities": {
                "workspace": {"configuration": True,
                              "didChangeConfiguration": {"dynamicRegistration": True}},
                "textDocument": {
                    "publishDiagnostics": {},
                    "completion": {"completionItem": {"snippetSupport": True,
                                                      "documentationFormat": ["plaintext"]}},
                },
            },
        })
        self.notify("initialized", {})
        # On `initialized` the server asks for its settings; a document opened before they
        # are in place is checked without schemas. A round trip after the answer makes sure
        # the server has applied them.
        if not self._configured.wait(TIMEOUT_S):
            raise TimeoutError("yaml-language-server never asked for its settings")
        self.request("textDocument/documentSymbol",
                     {"textDocument": {"uri": (workspace / "none.yaml").as_uri()}})

    # The wire.

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self._process.stdin is not None
        with self._lock:
            self._process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self._process.stdin.flush()

    def _read(self) -> None:
        stream = self._process.stdout
        assert stream is not None
        while True:
            length = 0
            while (line := stream.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if not line:
                return  # the server exited
            self._dispatch(json.loads(stream.read(length)))

    def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method is not None and "id" in message:  # the server asks: answer at once
            self._send({"id": message["id"], "result": self._answer(method, message)})
            if method == "workspace/configuration":
                self._configured.set()
        elif method == "textDocument/publishDiagnostics":
            params = message["params"]
            self._queue(params["uri"]).put(params["diagnostics"])
        elif "id" in message and method is None:
            self._answers.setdefault(message["id"], queue.Queue()).put(message)

    def _answer(self, method: str, message: dict[str, Any]) -> Any:
        if method == "workspace/configuration":
            sections = [item.get("section") for item in message["params"]["items"]]
            return [self.settings if section == "yaml" else {} for section in sections]
        return None  # registerCapability, workDoneProgress/create and the like

    def _queue(self, uri: str) -> queue.Queue[list[dict[str, Any]]]:
        with self._lock:
            return self._diagnostics.setdefault(uri, queue.Queue())

    def _open(self, file: Path, text: str) -> str:
        """Open a document afresh: what was published for it before is dropped. Each opening
        has a new version, as the server caches a document's parse by URI and version."""
        uri = file.resolve().as_uri()
        with self._lock:
            self._diagnostics[uri] = queue.Queue()
            self._version += 1
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "yaml", "version": self._version, "text": text}})
        return uri

    def _close(self, uri: str) -> None:
        """Close a document and wait for the server to clear its diagnostics, so that the
        clearing is not taken for the next opening's."""
        self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        self._queue(uri).get(timeout=TIMEOUT_S)

    # What a test calls.

    def request(self, method: str, params: dict[str, Any]) -> Any:
        self._next_id += 1
        number = self._next_id
        answers = self._answers.setdefault(number, queue.Queue())
        self._send({"id": number, "method": method, "params": params})
        reply = answers.get(timeout=TIMEOUT_S)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result")

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self._send({"method": method, "params": params})

    def diagnostics(self, file: Path, text: str | None = None) -> list[dict[str, Any]]:
        """Open `file` (with `text`, default its content) and return what the server
        reports for it: each diagnostic's range, severity and message."""
        uri = self._open(file, file.read_text(encoding="utf-8") if text is None else text)
        diagnostics = self._queue(uri).get(timeout=TIMEOUT_S)
        self._close(uri)
        return diagnostics

    def completion(self, file: Path, text: str, line: int, character: int) -> list[str]:
        """The labels the server offers at (line, character), both 0-based, in `text`."""
        uri = self._open(file, text)
        self._queue(uri).get(timeout=TIMEOUT_S)  # opened and validated
        result = self.request("textDocument/completion", {
            "textDocument": {"uri": uri}, "position": {"line": line, "character": character}})
        self._close(uri)
        items = result.get("items", []) if isinstance(result, dict) else (result or [])
        return [item["label"] for item in items]

    def changed(self, file: Path) -> None:
        """Tell the server a file changed on disk, as an editor's file watcher does (VS Code's
        YAML extension watches every .yaml and .json file of the workspace)."""
        self.notify("workspace/didChangeWatchedFiles",
                    {"changes": [{"uri": file.resolve().as_uri(), "type": 2}]})

    def close(self) -> None:
        try:
            self.request("shutdown", {})
            self.notify("exit", {})
            self._process.wait(timeout=TIMEOUT_S)
        finally:
            if self._process.poll() is None:
                self._process.kill()
                self._process.wait()

    def __enter__(self) -> LanguageServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
