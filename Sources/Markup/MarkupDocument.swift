internal import CLibXML2

/// A parsed HTML or XML document. Owns libxml2's tree and frees it when the last reference goes.
///
/// Parsing never touches the network (`NONET`), never expands external entities, and never prints libxml2's
/// diagnostics; errors come back as ``MarkupError``. Documents are meant to be parsed, queried and dropped
/// inside one function; they are not shared between threads.
public final class MarkupDocument {
    /// Refuses documents above this size unless the caller passes another limit.
    public static let defaultMaximumBytes = 8 << 20

    let pointer: xmlDocPtr

    private init(pointer: xmlDocPtr) {
        self.pointer = pointer
    }

    deinit {
        xmlFreeDoc(pointer)
    }

    /// Parses HTML (a whole page or a fragment) with libxml2's recovering parser.
    ///
    /// - Parameter encoding: how the bytes are encoded. Passed to libxml2 explicitly because a fragment
    ///   has no `<meta charset>` and libxml2's HTML parser would otherwise read UTF-8 as ISO-8859-1.
    public static func html(
        _ bytes: [UInt8], encoding: String = "UTF-8", maximumBytes: Int = defaultMaximumBytes
    ) throws(MarkupError) -> MarkupDocument {
        try check(bytes, maximumBytes: maximumBytes)
        guard bytes.contains(0) == false else { throw .notMarkup(reason: "it contains NUL bytes") }
        guard containsTag(bytes) else { throw .notMarkup(reason: "it has no tag") }
        LibXML2.initialize()
        let options = Int32(
            HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NONET.rawValue | HTML_PARSE_NOERROR.rawValue
                | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_COMPACT.rawValue)
        return try read(bytes) { htmlReadMemory($0, $1, nil, encoding, options) }
    }

    /// Parses XML strictly (not well-formed is an error). The encoding comes from the document's declaration.
    public static func xml(_ bytes: [UInt8], maximumBytes: Int = defaultMaximumBytes) throws(MarkupError) -> MarkupDocument {
        try check(bytes, maximumBytes: maximumBytes)
        LibXML2.initialize()
        let options = Int32(
            XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
                | XML_PARSE_COMPACT.rawValue | XML_PARSE_NOCDATA.rawValue)
        return try read(bytes) { xmlReadMemory($0, $1, nil, nil, options) }
    }

    /// Hands the bytes to a libxml2 reader and wraps what it returns (freed with the document).
    private static func read(
        _ bytes: [UInt8], with reader: (UnsafePointer<CChar>?, Int32) -> xmlDocPtr?
    ) throws(MarkupError) -> MarkupDocument {
        xmlResetLastError()
        let document = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { reader($0.baseAddress, Int32($0.count)) }
        }
        guard let document else { throw .malformed(message: LibXML2.lastError() ?? "libxml2 returned no document") }
        let result = MarkupDocument(pointer: document)
        guard xmlDocGetRootElement(document) != nil else { throw .notMarkup(reason: "it has no element") }
        return result
    }

    /// The root element (`<html>` for HTML, even for a fragment: libxml2 adds the implied elements).
    public var root: MarkupNode? {
        xmlDocGetRootElement(pointer).map { MarkupNode(pointer: $0, document: self) }
    }

    /// Evaluates an XPath expression from the root; returns the element and text nodes it selects.
    ///
    /// - Parameter namespaces: prefix → URI pairs the expression uses (XML documents).
    public func select(_ expression: String, namespaces: [String: String] = [:]) throws(MarkupError) -> [MarkupNode] {
        try XPathQuery.evaluate(expression, in: self, context: nil, namespaces: namespaces)
    }

    private static func check(_ bytes: [UInt8], maximumBytes: Int) throws(MarkupError) {
        guard bytes.count <= maximumBytes else { throw .tooLarge(bytes: bytes.count, limit: maximumBytes) }
        guard bytes.contains(where: { !Self.isASCIIWhitespace($0) }) else { throw .empty }
        guard bytes.count < Int(Int32.max) else { throw .tooLarge(bytes: bytes.count, limit: Int(Int32.max)) }
    }

    /// True when some `<` is followed by a letter, `/` or `!`: the least a document needs to be HTML.
    private static func containsTag(_ bytes: [UInt8]) -> Bool {
        var index = bytes.startIndex
        while let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
            let next = open + 1
            guard next < bytes.endIndex else { return false }
            let byte = bytes[next] | 0x20
            if (0x61...0x7A).contains(byte) || bytes[next] == UInt8(ascii: "/") || bytes[next] == UInt8(ascii: "!") {
                return true
            }
            index = next
        }
        return false
    }

    private static func isASCIIWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
    }
}
