# The seat firmware as frozen modules, for people who build MicroPython 1.29.0 for the
# seat themselves: its bytecode then lives in flash, not in the heap, and nothing but
# main.py, the pinout and the config needs copying onto the board. From a MicroPython
# checkout (the ESP32_GENERIC_S3 board, SPIRAM_OCT variant, as for the release image):
#
#   cd ports/esp32
#   make BOARD=ESP32_GENERIC_S3 BOARD_VARIANT=SPIRAM_OCT \
#       FROZEN_MANIFEST=/path/to/risktable/firmware/manifest.py
#
# then flash build-ESP32_GENERIC_S3-SPIRAM_OCT/firmware.bin with `risktable seat flash
# --firmware` and copy main.py, hardware/seat-pinout.json and the seat's config.json
# (firmware/README.md). main.py stays a file, not frozen: boot would run a frozen main.py
# in place of the file, and the file can change without a new image.
#
# Paths are relative to this file. tests/firmware/test_manifest.py checks that this names
# every module `risktable seat build` compiles, and nothing else.

# The port's own frozen modules (asyncio, neopixel, the bootstrap ...).
include("$(PORT_DIR)/boards/manifest.py")

module("log.py")
module("otaboot.py")
module("version.py")
package("board")
package("drivers")
package("net")
package("seat")
# The seat/hub contract, shared with the hub.
package("riskproto", base_path="../protocol")
