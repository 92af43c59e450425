"""Ordinary dice read from a photo of the tray (issue 31).

:func:`risktable.dice_camera.reader.DiceReader.read` takes an image and returns one
:class:`~risktable.dice_camera.reader.DieRead` per die found: its face value, its box,
its colour and whether the reader is sure. A small detector and a face classifier run
through onnxruntime; a classical pip count checks the classifier. The held-out split of
the shared photos is fixed in :mod:`risktable.dice_camera.split`.
"""
