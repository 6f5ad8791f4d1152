import Glibc

/// Questions about a run of bytes answered sixteen at a time with the CPU's vector compares: a request target and its
/// query are read whole several times (checked, split, surveyed), and a byte at a time each reading cost ten
/// instructions a byte — a place search's 96-byte query paid ~2,000 for it.
///
/// A run of sixteen or more ends with one load that overlaps the one before (every byte is looked at, some twice);
/// a shorter run is read a byte at a time. Public: a feature reading a value's bytes (places' categories) scans with
/// the same pieces.
public enum ByteScan {
    /// Whether every byte lies in `lowest...highest`.
    @inline(__always)
    public static func all(_ bytes: UnsafeBufferPointer<UInt8>, within lowest: UInt8, _ highest: UInt8) -> Bool {
        let width = highest &- lowest
        // One unsigned compare a byte: below `lowest` wraps round to above `width`.
        return !any(bytes) { $0 &- SIMD16(repeating: lowest) .> SIMD16(repeating: width) } scalar: { $0 &- lowest > width }
    }

    /// Whether any byte is `one` or `other`.
    @inline(__always)
    public static func contains(_ bytes: UnsafeBufferPointer<UInt8>, _ one: UInt8, or other: UInt8) -> Bool {
        any(bytes) { $0 .== SIMD16(repeating: one) .| ($0 .== SIMD16(repeating: other)) } scalar: { $0 == one || $0 == other }
    }

    /// Whether two runs hold the same bytes (`memcmp` after the lengths; two empty runs are the same).
    @inline(__always)
    public static func equal(_ one: UnsafeBufferPointer<UInt8>, _ other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard one.count == other.count, let a = one.baseAddress, let b = other.baseAddress else { return one.count == other.count }
        return memcmp(a, b, one.count) == 0
    }

    /// Where `byte` first stands in `bytes` from `start` on (`memchr`'s answer as an index), or `bytes.count`.
    @inline(__always)
    public static func first(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0) -> Int {
        guard start < bytes.count, let base = bytes.baseAddress, let found = memchr(base + start, Int32(byte), bytes.count - start) else {
            return bytes.count
        }
        return UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base
    }

    @inline(__always)
    private static func any(
        _ bytes: UnsafeBufferPointer<UInt8>, _ vector: (SIMD16<UInt8>) -> SIMDMask<SIMD16<Int8>>, scalar: (UInt8) -> Bool
    ) -> Bool {
        guard let base = bytes.baseAddress, bytes.count >= 16 else {
            var index = 0
            while index < bytes.count {
                if scalar(bytes[index]) { return true }
                index += 1
            }
            return false
        }
        var index = 0
        while index + 16 < bytes.count {
            if anySet(vector(UnsafeRawPointer(base + index).loadUnaligned(as: SIMD16<UInt8>.self))) { return true }
            index += 16
        }
        return anySet(vector(UnsafeRawPointer(base + bytes.count - 16).loadUnaligned(as: SIMD16<UInt8>.self)))
    }

    /// Whether any lane of `mask` is set, as two 64-bit words (the standard library's `any` reduces it through a generic
    /// `min()` call).
    @inline(__always)
    static func anySet(_ mask: SIMDMask<SIMD16<Int8>>) -> Bool {
        let words = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        return words[0] | words[1] != 0
    }
}
