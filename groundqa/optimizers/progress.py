"""The optimizers' progress bar on stderr (a terminal only: piped or quiet runs get none)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any


def progress_bar(total: int, desc: str, unit: str, enabled: bool) -> Callable[..., None]:
    """``update(done, **postfix)``: moves a tqdm bar to ``done`` of ``total`` (closed at the end), showing
    ``postfix`` beside it ("best=0.904"); a no-op when not ``enabled`` or stderr is not a terminal."""
    if not enabled or not sys.stderr.isatty():
        return lambda done, **postfix: None
    from tqdm import tqdm

    bar = tqdm(total=total, desc=desc, unit=unit, file=sys.stderr)

    def update(done: int, **postfix: Any) -> None:
        bar.n = done
        if postfix:
            bar.set_postfix(**postfix)
        bar.refresh()
        if done >= total:
            bar.close()

    return update


__all__ = ["progress_bar"]
