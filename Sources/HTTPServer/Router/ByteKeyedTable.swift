import Glibc

/// Values under keys that are byte strings (the router's exact paths), looked up with the bytes as they lie: a request's
/// path needs no `String` to be found, and its hash reads eight bytes at a time where `String` hashing ran SipHash
/// over a normalised string (and a path beyond ASCII through Unicode's normalisation, ~2,000 instructions).
///
/// Made whole and never changed (a registration makes a new one; registrations happen before the server starts):
/// one reference, open addressing at most half full, every probe ending in a length test and `memcmp`. Its keys are
/// the server's own, so a path chosen to collide costs a few more comparisons, never more than the table's size.
final class ByteKeyedTable<Value: Sendable>: Sendable {
    /// The keys as registered, and their values, in insertion order.
    let keys: [String]
    let values: [Value]
    /// Every key's bytes one after another; key `i` lies from `ends[i - 1]` (0 for the first) to `ends[i]`.
    private let bytes: [UInt8]
    private let ends: [Int]
    /// Index into ``keys`` + 1, or 0 for an empty slot; a power of two long.
    private let slots: [Int32]

    convenience init() { self.init(keys: [], values: []) }

    private init(keys: [String], values: [Value]) {
        self.keys = keys
        self.values = values
        var bytes: [UInt8] = [], ends: [Int] = []
        for key in keys {
            bytes.append(contentsOf: key.utf8)
            ends.append(bytes.count)
        }
        var size = 8
        while size < keys.count * 2 { size *= 2 }
        var slots = [Int32](repeating: 0, count: size)
        for (index, key) in keys.enumerated() {
            var slot = Self.hash(Array(key.utf8)) & (size - 1)
            while slots[slot] != 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = Int32(index + 1)
        }
        (self.bytes, self.ends, self.slots) = (bytes, ends, slots)
    }

    /// This table with `value` under `key` (replacing the one there).
    func adding(_ key: String, _ value: Value) -> ByteKeyedTable {
        var (keys, values) = (keys, values)
        if let index = keys.firstIndex(of: key) {
            values[index] = value
        } else {
            keys.append(key)
            values.append(value)
        }
        return ByteKeyedTable(keys: keys, values: values)
    }

    subscript(key: String) -> Value? {
        index(of: Array(key.utf8)).map { values[$0] }
    }

    /// Where `key` stands in ``keys``, or `nil`.
    func index(of key: UnsafeBufferPointer<UInt8>) -> Int? {
        let mask = slots.count - 1
        var slot = Self.hash(key) & mask
        return bytes.withUnsafeBufferPointer { all -> Int? in
            while true {
                let entry = Int(slots[slot])
                guard entry > 0 else { return nil }
                let start = entry > 1 ? ends[entry - 2] : 0
                if ends[entry - 1] - start == key.count {
                    guard let stored = all.baseAddress, let given = key.baseAddress else { return entry - 1 }
                    if memcmp(stored + start, given, key.count) == 0 { return entry - 1 }
                }
                slot = (slot + 1) & mask
            }
        }
    }

    private func index(of key: [UInt8]) -> Int? {
        key.withUnsafeBufferPointer { index(of: $0) }
    }

    /// Eight bytes at a time, each word mixed by a multiply and a shift.
    private static func hash(_ key: UnsafeBufferPointer<UInt8>) -> Int {
        var hash = UInt64(truncatingIfNeeded: key.count) &* 0x9E37_79B9_7F4A_7C15
        var index = 0
        if let base = key.baseAddress {
            while index + 8 <= key.count {
                hash = (hash ^ UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
                hash ^= hash >> 32
                index += 8
            }
        }
        var tail: UInt64 = 0
        while index < key.count {
            tail = tail << 8 | UInt64(key[index])
            index += 1
        }
        hash = (hash ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        return Int(truncatingIfNeeded: hash ^ hash >> 29)
    }

    private static func hash(_ key: [UInt8]) -> Int {
        key.withUnsafeBufferPointer { hash($0) }
    }
}
