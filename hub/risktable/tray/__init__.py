"""The dice tray as a table device (``risktable tray``, docs/dice-camera.md).

A camera (or a folder of photos, or a video file in its place) looks down at a dice tray;
the tray waits until the dice stop moving, reads two frames that agree with
:mod:`risktable.dice_camera`, tells each die's side by the colours learned in a calibration,
and publishes the roll on ``risk/<table>/tray/roll`` (protocol/README.md, "The dice tray").
The hub's side of it is :mod:`risktable.service.tray_desk`.

- :mod:`.colours`: the calibration (attack and defence colours) saved in the data directory;
- :mod:`.judge`: one read turned into a ``tray_roll`` message, with its problem (pure);
- :mod:`.watch`: frames to settled, agreeing reads (no MQTT);
- :mod:`.service`: the MQTT client that publishes them and hears what is armed.
"""

# The last photo the tray read and its read (the tray_roll message), kept for the board
# page (``risktable tray run --keep-photo``, the demo's tray) in the data directory.
LAST_PHOTO = "tray-last.jpg"
LAST_READ = "tray-last.json"
#: The calibration's file in the data directory (``risktable tray calibrate``); named here,
#: without the reader's imports, for the installer and its unit's start condition.
COLOURS_FILE = "tray-colours.json"
