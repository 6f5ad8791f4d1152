/// Eight bytes of text as one 64-bit word (the first byte lowest), asked questions about all eight at once with a few
/// arithmetic instructions: a name in a query is usually one short word of ASCII, which a loop read at ten or more
/// instructions a byte. The tests are the well-known ones ("Bit Twiddling Hacks": `haszero`, `hasless`), exact as
/// answers for the whole word.
@usableFromInline
enum ByteWord {
    @inlinable static var ones: UInt64 { 0x0101_0101_0101_0101 }
    @inlinable static var highs: UInt64 { 0x8080_8080_8080_8080 }

    /// The eight bytes from `index` (the caller keeps `index + 8 <= bytes.count`).
    @inlinable @inline(__always)
    static func load(_ base: UnsafePointer<UInt8>, at index: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
    }

    /// Whether every byte is printable ASCII (`!`…`~`) and none is `excluded`'s byte (`excluded`: one byte repeated in
    /// every lane, `0` for none — no printable byte is zero).
    @inline(__always)
    static func isPrintable(_ word: UInt64, excluding excluded: UInt64) -> Bool {
        notPrintable(word, excluding: excluded) == 0
    }

    /// The high bit of each byte that is not printable ASCII or is `excluded`'s byte. Exact for the whole word and for
    /// its lowest set byte (a borrow or a carry runs only upward, out of a byte that is itself set): where the first
    /// such byte stands is `trailingZeroBitCount / 8`.
    @inline(__always)
    static func notPrintable(_ word: UInt64, excluding excluded: UInt64) -> UInt64 {
        let below = (word &- ones &* 0x21) & ~word
        // Adding one carries a high bit into DEL (0x7F); a carry out of a byte at or above 0x80 only adds answers
        // already given by `word`'s own high bit.
        let deleteOrAbove = word | (word &+ ones)
        let same = word ^ excluded
        let isExcluded = (same &- ones) & ~same
        return (below | deleteOrAbove | isExcluded) & highs
    }

    /// The high bit of every byte that is `A`…`Z`: exact where no byte below has its high bit (a carry comes only out of
    /// such a byte), so exact for ASCII and for the lowest byte ``notPrintable(_:excluding:)`` does not already set.
    @inline(__always)
    static func capitalHighs(_ word: UInt64) -> UInt64 {
        let atLeastA = word &+ ones &* (0x80 - 0x41)
        let aboveZ = word &+ ones &* (0x80 - 0x5B)
        return atLeastA & ~aboveZ & highs
    }

    /// Where `one` or `other` first stands in `bytes` from `start` on, or `bytes.count`: eight bytes at a time (a
    /// decoded value's runs between escapes), then the last few one by one.
    @inlinable @inline(__always)
    static func first(_ one: UInt8, or other: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        if let base = bytes.baseAddress {
            while index + 8 <= bytes.count {
                let word = load(base, at: index)
                // `haszero` of the word against each byte: exact for the lowest byte it marks.
                let a = word ^ (ones &* UInt64(one)), b = word ^ (ones &* UInt64(other))
                let found = ((a &- ones) & ~a | (b &- ones) & ~b) & highs
                if found != 0 { return index + found.trailingZeroBitCount >> 3 }
                index += 8
            }
        }
        while index < bytes.count && bytes[index] != one && bytes[index] != other { index += 1 }
        return index
    }

    /// Copies `source[from..<end]` to `target` from `at` on, a word at a time: a last word reaching past `end` is still
    /// copied whole while it lies within the `count` bytes of `source` (the bytes past `end` land beyond what is kept,
    /// and what is written next covers them). The caller keeps `at <= from` and room for `count` bytes at `target`: a
    /// rewrite that never outgrows what it read (a decoding, a collapse).
    @inlinable @inline(__always)
    static func copy(
        _ source: UnsafePointer<UInt8>, from: Int, to end: Int, within count: Int, into target: UnsafeMutablePointer<UInt8>, at: Int
    ) {
        var (index, written) = (from, at)
        while index < end && index + 8 <= count {
            UnsafeMutableRawPointer(target + written).storeBytes(of: UnsafeRawPointer(source + index).loadUnaligned(as: UInt64.self), as: UInt64.self)
            let copied = min(8, end - index)
            (index, written) = (index + copied, written + copied)
        }
        while index < end {
            target[written] = source[index]
            (index, written) = (index + 1, written + 1)
        }
    }
}
