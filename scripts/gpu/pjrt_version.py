#!/usr/bin/env python3
"""Prints a PJRT plugin's C API version, read from the plugin itself, beside the one go-xla was built for.

    python3 scripts/gpu/pjrt_version.py /path/to/xla_cuda_plugin.so

Loads the shared library with ctypes, calls GetPjrtApi() and reads PJRT_Api's leading fields, whose layout
every PJRT C API version keeps: size_t struct_size; void* extension_start; then PJRT_Api_Version
{size_t struct_size; void* extension_start; int major_version; int minor_version}. A plugin whose minor
version is above go-xla's may check the sizes of go-xla's argument structs and refuse the smaller ones.
"""

import ctypes
import sys

GO_XLA = ("v0.4.0", 0, 104)  # go-xla's version and the PJRT_API_MAJOR/MINOR of its pjrt_c_api.h
GO_XLA_API_SIZE = 1120  # sizeof(PJRT_Api) in that header (gcc, x86-64)


def main():
    lib = ctypes.CDLL(sys.argv[1])
    lib.GetPjrtApi.restype = ctypes.c_void_p
    api = lib.GetPjrtApi()
    size = ctypes.c_size_t.from_address(api).value
    major = ctypes.c_int.from_address(api + 32).value
    minor = ctypes.c_int.from_address(api + 36).value
    print("plugin PJRT C API: %d.%d (PJRT_Api struct_size %d); go-xla %s built for %d.%d (PJRT_Api %d bytes)"
          % ((major, minor, size) + GO_XLA + (GO_XLA_API_SIZE,)))
    if (major, minor) != GO_XLA[1:]:
        print("plugin PJRT C API differs from go-xla's: %s" % ("newer" if (major, minor) > GO_XLA[1:] else "older"))


if __name__ == "__main__":
    main()
