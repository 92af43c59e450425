"""The face classifier: a crop around a die in, the probability of each class out.

Class 0 is "nothing to read" (no die, a die cocked against a wall, blurred or half
hidden); classes 1-6 are the top face's value. The crops are cut by
:func:`risktable.dice_camera.crops.die_crop`.
"""

from __future__ import annotations

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
    """Runs the classifier model on a batch of crops."""

    def __init__(self, path: Path, threads: int = 1) -> None:
        self._session = session(path, threads)
        self._input = self._session.get_inputs()[0].name

    def probabilities(self, crops: list[Image], turns: int = TURNS) -> npt.NDArray[np.float32]:
        """One row of 7 probabilities (classes 0-6) per crop: the mean over the crop
        seen in ``turns`` quarter turns (a face's value does not turn with it, the
        network's small errors do)."""
        if not crops:
            return np.zeros((0, 7), np.float32)
        stack = np.stack(crops)
        batch = np.concatenate([np.rot90(stack, k, axes=(1, 2)) for k in range(turns)])
        (out,) = self._session.run(None, {self._input: batch.transpose(0, 3, 1, 2)
                                          .astype(np.float32)})
        p = np.asarray(out, np.float32).reshape(turns, len(crops), -1)
        return np.asarray(p.mean(axis=0), np.float32)
