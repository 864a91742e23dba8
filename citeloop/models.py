"""Chat-model resolution, the replay chat model, and model-error classification.

A model is either a ``BaseChatModel`` object or a spec string:

- ``"provider:model"`` (e.g. ``"openai:gpt-4o-mini"``) — resolved with LangChain's
  ``init_chat_model`` at call time, never at import time;
- ``"replay:PATH"`` — a :class:`ReplayChatModel` that plays back recorded assistant turns
  from a JSONL file (see :class:`ReplayRecorder` to record one from a real run).

Replay file format: one JSON object per line,
``{"prompt_sha256": "<hex>", "content": "<assistant text>"}``; ``prompt_sha256`` is
:func:`prompt_digest` of the messages the model was called with.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult, LLMResult
from pydantic import ConfigDict, PrivateAttr

from citeloop.errors import ConfigurationError

logger = logging.getLogger(__name__)

REPLAY_PREFIX = "replay:"

# HTTP statuses that mean "try again later": request timeout, conflict, rate limit, and
# server-side failures (RFC 9110 §15.5.9, §15.5.10, RFC 6585 §4, RFC 9110 §15.6).
_TRANSIENT_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
# Provider SDK exception class names that are transient. Matched by name so that no
# provider package has to be installed to classify its errors.
_TRANSIENT_NAMES = (
    "RateLimit",
    "Timeout",
    "APIConnectionError",
    "InternalServerError",
    "ServiceUnavailable",
    "Overloaded",
)


class ModelError(RuntimeError):
    """A permanent chat-model failure (bad credentials, bad request, replay exhausted)."""


def is_transient_model_error(exc: BaseException) -> bool:
    """Whether a chat-model exception is worth retrying with backoff.

    Transient: timeouts, connection failures, rate limits and 5xx responses, recognised
    by exception type (``TimeoutError``, ``ConnectionError``), by a ``status_code`` /
    ``response.status_code`` attribute, or by the provider SDK's class name.

    Args:
        exc: The exception raised by the chat model.

    Returns:
        ``True`` when a retry may succeed.
    """
    if isinstance(exc, (TimeoutError, ConnectionError)):
        return True
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    if isinstance(status, int):
        return status in _TRANSIENT_STATUSES
    names = [cls.__name__ for cls in type(exc).__mro__]
    return any(marker in name for name in names for marker in _TRANSIENT_NAMES)


def prompt_digest(messages: Sequence[BaseMessage]) -> str:
    """SHA-256 hex digest of the role and text of each message, in order."""
    canonical = [[m.type, m.text] for m in messages]
    blob = json.dumps(canonical, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def load_replay_turns(path: str | Path) -> list[dict[str, Any]]:
    """Read a replay JSONL file.

    Raises:
        ConfigurationError: The file is missing, is not a regular file (a directory, or
            a FIFO, which would block the read) or cannot be read, holds no turn, or a
            line is not an object with a string ``content``; the message names the file
            and the line.
    """
    file = Path(path)
    problem = ""
    try:
        mode = file.stat().st_mode
    except FileNotFoundError:  # a broken symbolic link too
        problem = "does not exist"
    except OSError as exc:  # not a directory on the way, no permission to look
        problem = f"cannot be read ({exc.strerror or exc})"
    else:
        if stat.S_ISDIR(mode):
            problem = "is a directory"
        elif not stat.S_ISREG(mode):  # reading a FIFO would wait for a writer
            problem = "is not a regular file (a FIFO, socket or device)"
    if problem:
        raise ConfigurationError(
            f"replay file {str(file)!r} {problem}; pass replay:PATH with the path "
            "of a JSONL file of recorded turns (as `--record FILE` writes it)"
        )
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigurationError(
            f"replay file {str(file)!r} is not UTF-8 ({exc.reason} at byte {exc.start})"
        ) from None
    except OSError as exc:
        raise ConfigurationError(
            f"replay file {str(file)!r} cannot be read ({exc.strerror or exc}); check its "
            "permissions, or pass replay:PATH with a file you can read"
        ) from None
    turns: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            turn = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigurationError(f"{file}:{number}: not valid JSON ({exc.msg})") from None
        except (ValueError, RecursionError):  # a huge integer, or nesting too deep
            raise ConfigurationError(
                f"{file}:{number}: not a turn citeloop can read (a number of too many "
                "digits, or nesting too deep); re-record it with `--record FILE`"
            ) from None
        if not isinstance(turn, dict) or not isinstance(turn.get("content"), str):
            raise ConfigurationError(
                f'{file}:{number}: expected an object with a string "content" field'
            )
        if not isinstance(turn.get("prompt_sha256", ""), str):
            raise ConfigurationError(
                f'{file}:{number}: "prompt_sha256" must be a string (the hex digest of the '
                "prompt the turn answers), or left out"
            )
        turns.append(turn)
    if not turns:
        raise ConfigurationError(
            f"replay file {str(file)!r} holds no turns; record one by giving the citeloop "
            "command (run, explain or audit) `--model provider:model --record FILE`"
        )
    return turns


class ReplayChatModel(BaseChatModel):
    """A chat model that plays back recorded assistant turns.

    A turn recorded with a ``prompt_sha256`` answers exactly that prompt, however often
    it recurs, so replaying a recorded run is deterministic. Turns without a digest
    (hand-written scripts) answer the other prompts, each once per process, in file
    order (the model is shared by every run that names the same file).

    Args:
        turns: Recorded turns (``{"content": ..., "prompt_sha256": ...}``).
        source: Where the turns came from, for messages.

    Raises:
        ModelError: On a call whose prompt matches no recorded digest when no turn
            without a digest is left: the prompt differs from the recording (e.g. the
            task or the indexed code changed), so the recording must be made again.

    Example:
        >>> model = ReplayChatModel(turns=[{"content": "Recorded answer."}])
        >>> model.invoke("Any prompt").content
        'Recorded answer.'
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    turns: list[dict[str, Any]]
    """The turns: ``content`` and ``prompt_sha256`` are read, other keys (a recording
    of another tool's, with usage or tool calls) are left alone."""
    source: str = "<memory>"
    _played: set[int] = PrivateAttr(default_factory=set)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @classmethod
    def from_file(cls, path: str | Path) -> ReplayChatModel:
        return cls(turns=load_replay_turns(path), source=str(path))

    @property
    def _llm_type(self) -> str:
        return "citeloop-replay"

    def _pick(self, digest: str) -> str:
        for turn in self.turns:
            if turn.get("prompt_sha256") == digest:
                return turn["content"]
        with self._lock:
            for index, turn in enumerate(self.turns):
                if not turn.get("prompt_sha256") and index not in self._played:
                    self._played.add(index)
                    return turn["content"]
        if any(not turn.get("prompt_sha256") for turn in self.turns):
            raise ModelError(
                f"replay {self.source}: its turns without a prompt_sha256 were all played "
                "already in this process (each plays once): add a turn to the file for "
                "this call, or record the run with a real model by giving the same citeloop "
                "command (run, explain or audit) `--record FILE`, to replay it any number "
                "of times"
            )
        raise ModelError(
            f"replay {self.source}: no turn was recorded for this prompt "
            f"(sha256 {digest[:12]}...); the task, the settings or the indexed code differ "
            "from the recording: record it again by giving the same citeloop command "
            "(run, explain or audit) `--model provider:model --record FILE`"
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        content = self._pick(prompt_digest(messages))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=content))])


class ReplayRecorder(BaseCallbackHandler):
    """A callback that appends every chat-model turn of a run to a replay JSONL file.

    Pass it in ``config={"callbacks": [ReplayRecorder(path)]}``; the file can then be
    played back with ``replay:PATH``. A write failure is raised into the model call
    (``raise_error``), so a recording is never silently lost.
    """

    raise_error = True

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._prompts: dict[UUID, str] = {}
        self._lock = threading.Lock()

    def on_chat_model_start(
        self, serialized: Any, messages: list[list[BaseMessage]], *, run_id: UUID, **kwargs: Any
    ) -> None:
        self._prompts[run_id] = prompt_digest(messages[0])

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        digest = self._prompts.pop(run_id, None)
        if digest is None:
            return
        text = response.generations[0][0].text
        line = json.dumps({"prompt_sha256": digest, "content": text}, ensure_ascii=False)
        with self._lock, self.path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")


def resolve_chat_model(model: str | BaseChatModel) -> BaseChatModel:
    """Turn a model spec into a chat model.

    Args:
        model: A ``BaseChatModel``, ``"replay:PATH"``, or ``"provider:model"``.

    Returns:
        The chat model.

    Raises:
        ConfigurationError: An empty spec; a replay file that is missing or malformed;
            an unknown provider or a provider package that is not installed (the
            message says which); a provider that refuses its settings (e.g. no API key).
    """
    if isinstance(model, BaseChatModel):
        return model
    if not isinstance(model, str) or not model.strip():
        raise ConfigurationError(
            f"model must be a chat model or a 'provider:model' string, got {model!r}"
        )
    spec = model.strip()
    if spec in ("replay", REPLAY_PREFIX):
        raise ConfigurationError("a replay model needs a file: use 'replay:PATH'")
    if spec.startswith(REPLAY_PREFIX):
        path = Path(spec[len(REPLAY_PREFIX) :])
        try:  # the file's version; load_replay_turns says what is wrong with the path
            info: os.stat_result | None = path.stat()
        except OSError:
            info = None
        return _replay_model(path, info.st_mtime_ns if info else 0, info.st_size if info else 0)
    return _provider_model(spec)


@lru_cache(maxsize=16)
def _replay_model(path: Path, mtime_ns: int, size: int) -> ReplayChatModel:
    """One replay model per file version (re-read when the file changes)."""
    return ReplayChatModel.from_file(path)


_API_KEYS = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "mistralai": "MISTRAL_API_KEY",
    "google_genai": "GOOGLE_API_KEY",
    "groq": "GROQ_API_KEY",
}
"""The environment variable each provider's package reads its API key from."""


def _api_key(spec: str) -> str:
    """Where the provider of ``spec`` (``provider:model``) reads its API key, for an
    error message: its own variable (a message that said ``OPENAI_API_KEY`` for every
    provider misled an Anthropic user), none for Ollama, which runs locally."""
    provider = spec.partition(":")[0] if ":" in spec else ""
    if provider == "ollama":
        return "an Ollama server runs locally and needs no API key"
    if provider in _API_KEYS:
        return f"its API key is read from the environment variable {_API_KEYS[provider]}"
    return "the provider's API key is read from its environment variable"


@lru_cache(maxsize=16)
def _provider_model(spec: str) -> BaseChatModel:
    """One chat model per spec and process: provider clients are reusable."""
    from langchain.chat_models import init_chat_model

    try:
        return init_chat_model(spec)
    except ImportError as exc:
        raise ConfigurationError(
            f"model {spec!r} needs a provider package that is not installed: {exc} "
            f"(citeloop's extras install them: openai, anthropic, ollama; {_api_key(spec)}), "
            "or use the model 'replay:PATH' to play back recorded answers offline"
        ) from None
    except Exception as exc:
        raise ConfigurationError(
            f"cannot create chat model {spec!r}: {exc}; use 'provider:model' "
            "(e.g. 'openai:gpt-4o-mini') with the provider's credentials set, "
            "or 'replay:PATH'"
        ) from None
