import Basics

/// Encodes response bodies the same way everywhere: keys sorted, absent optionals left out, numbers and strings by
/// ``JSONWriter``'s rules (`/` unescaped) — ``OrderedJSONEncoder``'s ``OrderedJSONEncoder/Layout/sortedKeys`` — so equal
/// data gives equal bytes (and equal ETags) in every process.
public enum JSONBody {
    public static func encode(_ value: some Encodable) throws -> [UInt8] {
        try OrderedJSONEncoder.encode(value, layout: .sortedKeys)
    }
}
