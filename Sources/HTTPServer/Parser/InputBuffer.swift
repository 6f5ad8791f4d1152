/// Bytes received on a connection and not yet consumed by the parser.
///
/// Consumption only moves an index; the storage is compacted when the consumed prefix dominates, so a
/// stream of pipelined requests costs amortised O(1) per byte.
public struct InputBuffer: Sendable {
    public private(set) var storage: [UInt8] = []
    public private(set) var start = 0

    public init() {}

    public init(_ bytes: [UInt8]) { storage = bytes }

    /// An empty buffer using `storage`'s room (a closed connection's, from ``BufferPool``).
    init(reusing storage: [UInt8]) {
        self.storage = storage
        self.storage.removeAll(keepingCapacity: true)
    }

    /// Hands the storage on (to ``BufferPool``), leaving this buffer empty.
    mutating func takeStorage() -> [UInt8] {
        start = 0
        defer { storage = [] }
        return storage
    }

    /// Number of unconsumed bytes.
    public var count: Int { storage.count - start }

    public var isEmpty: Bool { start == storage.count }

    public mutating func append<C: Collection>(contentsOf bytes: C) where C.Element == UInt8 {
        compactIfNeeded(incoming: bytes.count)
        storage.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compactIfNeeded(incoming: bytes.count)
        storage.append(contentsOf: bytes)
    }

    /// Drops `n` bytes from the front.
    public mutating func consume(_ n: Int) {
        start += n
        if start >= storage.count {
            storage.removeAll(keepingCapacity: storage.capacity <= 65_536)
            start = 0
        }
    }

    public subscript(offset: Int) -> UInt8 { storage[start + offset] }

    /// Unconsumed bytes `[from, to)` relative to the front, copied out.
    public func bytes(_ range: Range<Int>) -> ArraySlice<UInt8> {
        storage[(start + range.lowerBound)..<(start + range.upperBound)]
    }

    /// Calls `body` with the unconsumed bytes.
    public func withUnsafeBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try storage.withUnsafeBufferPointer { all in
            try body(UnsafeBufferPointer(rebasing: all[start...]))
        }
    }

    private mutating func compactIfNeeded(incoming: Int) {
        if start > 0 && (start >= 4096 || start * 2 >= storage.count) {
            storage.removeFirst(start)
            start = 0
        }
    }
}
