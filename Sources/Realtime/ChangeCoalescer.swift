import Basics
import Dispatch
import Synchronization

/// Passes changes on, except that changes of one table, kind and coalescing value (``TableChange/coalescing``) within
/// `window` of the last one passed on wait, and only the latest of them is passed on when the window ends: the first
/// of a burst goes at once, the last is never lost, and in between at most one a window.
final class ChangeCoalescer: Sendable {
    private struct Key: Hashable {
        var table: String
        var kind: TableChange.Kind
        var value: String
    }

    private let window: Duration
    private let deliver: @Sendable (TableChange) -> Void
    /// The keys whose window is open, with the change waiting for its end.
    private let open = Mutex<[Key: TableChange?]>([:])
    private let queue = DispatchQueue(label: "pier.realtime.coalescing")

    init(window: Duration, deliver: @escaping @Sendable (TableChange) -> Void) {
        self.window = window
        self.deliver = deliver
    }

    func offer(_ change: TableChange) {
        guard let value = change.coalescing, window > .zero else { return deliver(change) }
        let key = Key(table: change.table, kind: change.kind, value: value)
        let now = open.withLock { open -> Bool in
            if open.keys.contains(key) {
                open[key] = .some(change)
                return false
            }
            open[key] = .some(nil)
            return true
        }
        guard now else { return }
        deliver(change)
        closeLater(key)
    }

    /// Keys whose window is open (a gauge: bounded by the distinct values changed within a window).
    var openWindows: Int { open.withLock { $0.count } }

    private func closeLater(_ key: Key) {
        queue.asyncAfter(deadline: .now() + window.seconds) { [self] in
            let waiting = open.withLock { open -> TableChange? in
                guard let held = open[key], let change = held else {
                    open[key] = nil
                    return nil
                }
                open[key] = .some(nil)
                return change
            }
            guard let waiting else { return }
            deliver(waiting)
            closeLater(key)
        }
    }
}
