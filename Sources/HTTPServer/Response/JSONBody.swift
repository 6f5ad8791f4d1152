import Foundation

/// Encodes response bodies the same way everywhere: sorted keys and unescaped slashes, so equal data gives
/// equal bytes (and equal ETags) in every process.
public enum JSONBody {
    public static func encode(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }
}
