"""Find what groundqa logged to MLflow: open the store, its ``groundqa-*`` experiments, and runs by id,
name or prefix (the newest first).

Runs come from :mod:`groundqa.tracking.compile_run` (a compile run carries ``baseline/<metric>``,
``compiled/<metric>`` and ``delta/<metric>``) and :mod:`groundqa.tracking.evaluation_run` (an evaluation
run carries ``dev/<metric>``). A store that cannot be read raises :class:`TrackingError` (one line).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from groundqa.tracking import setup
from groundqa.tracking.errors import TrackingError

EXPERIMENT_PREFIX = f"{setup.EXPERIMENT_PREFIX}-"
PARENT_TAG = "mlflow.parentRunId"

_HEX_ID = re.compile(r"^[0-9a-f]{32}$")
_HEX_PREFIX = re.compile(r"^[0-9a-f]{4,31}$")


@dataclass
class RunInfo:
    """One MLflow run as compared: identity, selected params and every (latest) metric value."""

    run_id: str
    name: str
    experiment: str
    start_time: int | None = None
    status: str = ""
    kind: str = "other"  # compile | evaluate | other
    params: dict[str, str] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)

    @property
    def short_id(self) -> str:
        return self.run_id[:8]

    def header(self, with_experiment: bool = False) -> str:
        """Column header: name, short id, then optimizer/program and LM when logged."""
        lines = [self.name, self.short_id]
        what = self.params.get("optimizer") or _short_program(self.params.get("program"))
        detail = " · ".join(v for v in (what, self.params.get("lm")) if v)
        if detail:
            lines.append(detail)
        if with_experiment:
            lines.append(self.experiment.removeprefix(EXPERIMENT_PREFIX))
        return "\n".join(lines)

    def label(self) -> str:
        """One-line label (chart legend)."""
        what = self.params.get("optimizer") or _short_program(self.params.get("program"))
        detail = ", ".join(v for v in (what, self.params.get("lm")) if v)
        return f"{self.name} ({self.short_id})" + (f" — {detail}" if detail else "")


def _short_program(program: str | None) -> str | None:
    if not program or program in ("baseline", "compiled"):
        return program
    return Path(program).name if Path(program).name != "program.json" else Path(program).parent.name


def _run_kind(params: dict[str, str], metrics: dict[str, float], name: str) -> str:
    if "optimizer" in params or any(k.startswith("compiled/") for k in metrics):
        return "compile"
    if name.startswith("evaluate") or any(k.startswith("dev/") for k in metrics):
        return "evaluate"
    return "other"


def run_info(run: Any, experiment_name: str) -> RunInfo:
    """A :class:`RunInfo` from an ``mlflow.entities.Run``."""
    params = dict(run.data.params)
    metrics = {k: float(v) for k, v in run.data.metrics.items()}
    name = run.info.run_name or run.data.tags.get("mlflow.runName") or run.info.run_id[:8]
    return RunInfo(run_id=run.info.run_id, name=name, experiment=experiment_name,
                   start_time=run.info.start_time, status=run.info.status,
                   kind=_run_kind(params, metrics, name), params=params, metrics=metrics)


def _store_path(uri: str) -> Path | None:
    """The local file behind a sqlite/file store URI (``None`` for servers and in-memory stores)."""
    parsed = urlparse(uri)
    if parsed.scheme == "sqlite":
        raw = uri.removeprefix("sqlite:///")
        return None if raw in ("", ":memory:") or raw.startswith("file:") else Path(unquote(raw))
    if parsed.scheme == "file":
        return Path(unquote(parsed.path))
    if parsed.scheme == "" or (len(parsed.scheme) == 1 and uri[1:3] in (":\\", ":/")):  # a plain path
        return Path(uri)
    return None


def open_client(settings: Any) -> Any:
    """An ``MlflowClient`` on the configured store; TrackingError when it is missing or unreachable."""
    uri = settings.tracking_uri
    local = _store_path(uri)
    if local is not None and not local.exists():
        raise TrackingError(f"no MLflow store at {local}: run `groundqa compile` or `groundqa evaluate` first "
                            "(or point MLFLOW_TRACKING_URI at your store)")
    tracking = setup.configure_tracking(settings)
    if not tracking.enabled:
        raise TrackingError(tracking.reason)
    from mlflow.tracking import MlflowClient

    return MlflowClient(tracking_uri=tracking.uri)


def store_call(client: Any, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Call the store; turn any failure into one TrackingError line."""
    try:
        return fn(*args, **kwargs)
    except Exception as exc:  # sqlalchemy, requests and MlflowException all mean: cannot read the store
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise TrackingError(f"cannot {what} in the MLflow store {client.tracking_uri}: "
                            f"{type(exc).__name__}{': ' + first[:200] if first else ''}") from exc


def find_experiments(client: Any, name: str | None = None) -> list[Any]:
    """The named experiment (``NAME`` or ``groundqa-NAME``), else every ``groundqa-*`` experiment."""
    if name:
        for candidate in (name, f"{EXPERIMENT_PREFIX}{name}"):
            experiment = store_call(client, "read experiments", client.get_experiment_by_name, candidate)
            if experiment is not None:
                return [experiment]
        known = [e.name for e in _groundqa_experiments(client)]
        hint = f"; known: {', '.join(known)}" if known else ""
        raise TrackingError(f"unknown experiment {name!r}{hint}")
    experiments = _groundqa_experiments(client)
    if not experiments:
        raise TrackingError(f"no {EXPERIMENT_PREFIX}* experiments in {client.tracking_uri}: "
                            "run `groundqa compile` or `groundqa evaluate` first")
    return experiments


def _groundqa_experiments(client: Any) -> list[Any]:
    found = store_call(client, "read experiments", client.search_experiments,
                        filter_string=f"name LIKE '{EXPERIMENT_PREFIX}%'")
    return sorted(found, key=lambda e: e.name)


def _iter_runs(client: Any, experiments: Sequence[Any]) -> Iterable[Any]:
    """Every active run of ``experiments``, newest first (paged)."""
    ids = [e.experiment_id for e in experiments]
    token = None
    while True:
        page = store_call(client, "read runs", client.search_runs, ids, max_results=500,
                           order_by=["attributes.start_time DESC"], page_token=token)
        yield from page
        token = page.token
        if not token:
            return


def _is_top_level(run: Any) -> bool:
    return PARENT_TAG not in run.data.tags


def resolve_run(client: Any, experiments: Sequence[Any], token: str) -> Any:
    """The run with id ``token``, else the newest run named ``token``, else the one run whose id (or,
    among top-level runs, whose name) starts with ``token``."""
    token = token.strip()
    if _HEX_ID.match(token):
        try:
            return client.get_run(token)
        except Exception:  # not found (or unreadable): try it as a name below
            pass
    runs = list(_iter_runs(client, experiments))
    named = [r for r in runs if r.info.run_name == token]
    if named:
        top = [r for r in named if _is_top_level(r)] or named
        if len(top) > 1:
            print(f"groundqa: {len(top)} runs are named {token!r}; using the newest ({top[0].info.run_id[:8]})",
                  file=sys.stderr)
        return top[0]
    if _HEX_PREFIX.match(token):
        matches = [r for r in runs if r.info.run_id.startswith(token)]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise TrackingError(f"run id prefix {token!r} is ambiguous ({len(matches)} runs); give more characters")
    prefixed = [r for r in runs if _is_top_level(r) and (r.info.run_name or "").startswith(token)]
    if len(prefixed) == 1:
        return prefixed[0]
    if len(prefixed) > 1:
        some = ", ".join(r.info.run_name for r in prefixed[:4]) + (", ..." if len(prefixed) > 4 else "")
        raise TrackingError(f"run name prefix {token!r} is ambiguous ({len(prefixed)} runs: {some}); "
                            "give the full name or the run id")
    where = ", ".join(e.name for e in experiments)
    raise TrackingError(f"unknown run {token!r}: no run id or run name matches in {where}")


def select_runs(client: Any, experiments: Sequence[Any], runs: Sequence[str] | None = None,
                last: int = 5) -> list[RunInfo]:
    """The runs named by ``runs`` (ids or names, in that order), else the ``last`` newest top-level runs."""
    names = {e.experiment_id: e.name for e in experiments}

    def experiment_of(run: Any) -> str:
        if run.info.experiment_id not in names:
            experiment = store_call(client, "read experiments", client.get_experiment, run.info.experiment_id)
            names[run.info.experiment_id] = experiment.name
        return names[run.info.experiment_id]

    if runs:
        chosen = [resolve_run(client, experiments, token) for token in runs]
        unique = list({r.info.run_id: r for r in chosen}.values())
        return [run_info(r, experiment_of(r)) for r in unique]
    if last < 1:
        raise TrackingError("--last must be at least 1")
    picked: list[RunInfo] = []
    for run in _iter_runs(client, experiments):
        if _is_top_level(run):
            picked.append(run_info(run, experiment_of(run)))
            if len(picked) >= last:
                break
    if not picked:
        where = ", ".join(e.name for e in experiments)
        raise TrackingError(f"no runs to compare in {where} ({client.tracking_uri})")
    return picked
