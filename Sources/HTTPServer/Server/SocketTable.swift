/// A loop's open connections by their socket: an array indexed by the descriptor, which the kernel hands out lowest
/// first, so the table is as long as the most sockets open at once — and finding a connection for an event is an
/// index, not a hash (a dictionary lookup for every event was a few hundred instructions of every request).
struct SocketTable<Connection: AnyObject> {
    private var slots: [Connection?] = []
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    subscript(fd: Int32) -> Connection? {
        get { fd >= 0 && Int(fd) < slots.count ? slots[Int(fd)] : nil }
        set {
            let index = Int(fd)
            guard index >= 0 else { return }
            if index >= slots.count {
                guard newValue != nil else { return }
                slots += Array(repeating: nil, count: max(index + 1 - slots.count, slots.count))
            }
            count += (newValue == nil ? 0 : 1) - (slots[index] == nil ? 0 : 1)
            slots[index] = newValue
        }
    }

    /// The connections open now, in descriptor order: a copy, so that closing one while walking them is safe.
    var values: [Connection] { slots.compactMap { $0 } }
}
