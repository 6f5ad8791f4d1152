/// Writes a CBOR item in definite lengths, the shortest argument each time (RFC 8949 §4.2.1's preferred form; floats
/// as 64 bits). For tests and tools that build what App Attest sends; Pier itself only reads.
public enum CBOREncoder {
    public static func encode(_ item: CBOR) -> [UInt8] {
        var output: [UInt8] = []
        write(item, into: &output)
        return output
    }

    private static func head(_ major: UInt8, _ argument: UInt64, into output: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24: output.append(type | UInt8(argument))
        case 24...0xFF: output += [type | 24, UInt8(argument)]
        case 0x100...0xFFFF: output += [type | 25] + bigEndian(argument, 2)
        case 0x1_0000...0xFFFF_FFFF: output += [type | 26] + bigEndian(argument, 4)
        default: output += [type | 27] + bigEndian(argument, 8)
        }
    }

    private static func bigEndian(_ value: UInt64, _ count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    private static func write(_ item: CBOR, into output: inout [UInt8]) {
        switch item {
        case .unsigned(let value): head(0, value, into: &output)
        case .negative(let value): head(1, value, into: &output)
        case .bytes(let value):
            head(2, UInt64(value.count), into: &output)
            output += value
        case .text(let value):
            head(3, UInt64(value.utf8.count), into: &output)
            output += Array(value.utf8)
        case .array(let elements):
            head(4, UInt64(elements.count), into: &output)
            for element in elements { write(element, into: &output) }
        case .map(let pairs):
            head(5, UInt64(pairs.count), into: &output)
            for pair in pairs {
                write(pair.key, into: &output)
                write(pair.value, into: &output)
            }
        case let .tagged(tag, value):
            head(6, tag, into: &output)
            write(value, into: &output)
        case .simple(let value):
            if value < 24 { output.append(0xE0 | value) } else { output += [0xF8, value] }
        case .bool(let value): output.append(value ? 0xF5 : 0xF4)
        case .null: output.append(0xF6)
        case .undefined: output.append(0xF7)
        case .float(let value): output += [0xFB] + bigEndian(value.bitPattern, 8)
        }
    }
}
