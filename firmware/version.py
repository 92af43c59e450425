# The seat firmware's version, sent in every birth (`fw`, protocol/README.md).
#
# Here the release number people talk about. `risktable seat build` writes
# "RELEASE+HASH" into the compiled copy of this module, HASH being the content hash of
# the firmware files (hub: risktable/provision/fw_version.py), so a seat built from a
# changed file reports a different version. Run from the source tree (development, the
# tests' seats) the seat reports the bare release number. One string and nothing
# else: seat/app.py reads it and drops the module, whose dict would cost heap.

VERSION = "0.3.0"
