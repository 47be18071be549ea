#!/usr/bin/env python3
# Seeds for fuzz_heap_walk: a Node 20 (V8 11.3) page image at 0x100000: the chunk header (size,
# flags, heap, area_start, area_end), then a meta map, a JSObject map, 3 JSObjects, a FixedArray
# and free space to the end of the area; a second seed marks the page FROM_PAGE.
import struct, sys, os
BASE = 0x100000
def page(flags):
    img = bytearray(0x1000)
    area = BASE + 0x100
    struct.pack_into('<5Q', img, 0, 0x40000, flags, 0xdead000, area, BASE + 0x1000)
    def map_at(off, mapof, size_words, itype):
        struct.pack_into('<Q', img, off, mapof)
        struct.pack_into('<BBBBH', img, off + 8, size_words, 3, 0, 0, itype)
    meta = area + 1
    map_at(0x100, meta, 10, 255)                 # the meta map (its own map)
    map_at(0x150, meta, 10, 1057)                # a JSObject map, 4 words... say 5
    struct.pack_into('<B', img, 0x158, 5)
    jsmap = BASE + 0x150 + 1
    off = 0x1a0
    for i in range(3):
        struct.pack_into('<5Q', img, off, jsmap, 0, 0, i << 32, 7 << 32)
        off += 40
    fa_map = BASE + off + 1                      # a FixedArray map, then one FixedArray of 2
    map_at(off, meta, 0, 175); off += 80
    struct.pack_into('<4Q', img, off, fa_map, 2 << 32, BASE + 0x1a1, BASE + 0x1c9); off += 32
    fs_map = BASE + off + 1
    map_at(off, meta, 0, 251); off += 80
    struct.pack_into('<2Q', img, off, fs_map, (0x1000 - off) << 32)
    return bytes(img)
d = sys.argv[1]
open(os.path.join(d, 'page'), 'wb').write(page(0x4))
open(os.path.join(d, 'from_page'), 'wb').write(page(0xa))
