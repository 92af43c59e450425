"""The face classifier: a crop around a die in, the probability of each class out.

Class 0 is "nothing to read" (no die, a die cocked against a wall, blurred or half
hidden); classes 1-6 are the top face's value. The crops are cut by
:func:`risktable.dice_camera.crops.die_crop`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from risktable.dice_camera.crops import Image
from risktable.dice_camera.model_files import session

UNREADABLE = 0
# Quarter turns each crop is read in (measured on the validation photos: four turns read
# about 3 % more dice right than one, for 1.5 ms more per die on one core).
TURNS = 4


class FaceClassifier:
    """Runs the classifier model, or each model of an ensemble, on a batch of crops."""

    def __init__(self, paths: Path | Sequence[Path], threads: int = 1) -> None:
        members = [paths] if isinstance(paths, Path) else list(paths)
        if not members:
            raise ValueError("a face classifier needs at least one model file")
        self._sessions = [session(path, threads) for path in members]
        self._input = self._sessions[0].get_inputs()[0].name

    def probabilities(self, crops: list[Image], turns: int = TURNS) -> npt.NDArray[np.float32]:
        """One row of 7 probabilities (classes 0-6) per crop: the mean over the crop
        seen in ``turns`` quarter turns (a face's value does not turn with it, the
        network's small errors do) and over the ensemble's models."""
        if not crops:
            return np.zeros((0, 7), np.float32)
        stack = np.stack(crops)
        batch = np.concatenate([np.rot90(stack, k, axes=(1, 2)) for k in range(turns)])
        tensor = batch.transpose(0, 3, 1, 2).astype(np.float32)
        p = np.stack([np.asarray(s.run(None, {self._input: tensor})[0], np.float32)
                      for s in self._sessions])
        return np.asarray(p.reshape(-1, len(crops), p.shape[-1]).mean(axis=0), np.float32)
