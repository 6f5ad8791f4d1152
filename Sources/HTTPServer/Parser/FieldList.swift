/// A field value that is a list (RFC 9110 §5.6.1: members separated by commas, optional whitespace around each), read as
/// bytes where it lies: `Connection`, `Content-Length` and `If-None-Match` are walked the same way.
enum FieldList {
    /// Visits the members in order — trimmed of spaces and tabs, empty ones included (`a,,b` has three, `a,` two) —
    /// until `predicate` is true; whether it was.
    static func anyMember(_ value: UnsafeBufferPointer<UInt8>, _ predicate: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        var start = 0
        while start <= value.count {
            var end = start
            while end < value.count && value[end] != UInt8(ascii: ",") { end += 1 }
            var first = start, last = end
            while first < last && (value[first] == 0x20 || value[first] == 0x09) { first += 1 }
            while last > first && (value[last - 1] == 0x20 || value[last - 1] == 0x09) { last -= 1 }
            if predicate(UnsafeBufferPointer(rebasing: value[first..<last])) { return true }
            start = end + 1
        }
        return false
    }
}
