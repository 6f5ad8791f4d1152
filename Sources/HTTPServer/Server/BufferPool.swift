/// Byte buffers of closed connections, kept for the next ones a loop accepts: with a connection per request
/// (`Connection: close`), allocating and growing an input and an output buffer for each, then freeing them, was a tenth
/// of the request's instructions. Loop-confined; bounded in buffers and in each one's capacity.
struct BufferPool {
    /// Buffers kept at most, and the largest capacity kept (a buffer grown for one large answer is let go).
    static let maximumBuffers = 128
    static let maximumCapacity = 64 * 1024
    /// What a buffer made here starts with: a request head or a response head fits without growing.
    static let initialCapacity = 2048

    private var spare: [[UInt8]] = []

    /// An empty buffer: a kept one, else a new one with room for a head.
    mutating func take() -> [UInt8] {
        if let buffer = spare.popLast() { return buffer }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(Self.initialCapacity)
        return buffer
    }

    /// Keeps `buffer`, emptied, for a later connection, unless the pool is full or the buffer too large.
    mutating func give(_ buffer: consuming [UInt8]) {
        guard spare.count < Self.maximumBuffers, buffer.capacity >= Self.initialCapacity, buffer.capacity <= Self.maximumCapacity else { return }
        buffer.removeAll(keepingCapacity: true)
        spare.append(buffer)
    }
}
