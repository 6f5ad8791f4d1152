internal import CLibXML2
import Glibc

/// An element (or text node) inside a ``MarkupDocument``. Keeps its document alive.
public struct MarkupNode {
    let pointer: xmlNodePtr
    let document: MarkupDocument

    init(pointer: xmlNodePtr, document: MarkupDocument) {
        self.pointer = pointer
        self.document = document
    }

    /// The element's local name (`div`, `tr`); `text` for text nodes.
    public var name: String {
        pointer.pointee.name.map { String(cString: $0) } ?? ""
    }

    public var isElement: Bool { pointer.pointee.type == XML_ELEMENT_NODE }

    /// The attribute's value with entities decoded, or `nil` when the element has no such attribute.
    public func attribute(_ name: String) -> String? {
        guard let value = xmlGetProp(pointer, name) else { return nil }
        defer { pier_xml_free(value) }
        return String(cString: value)
    }

    /// Whether the `class` attribute holds `name` as one of its whitespace-separated tokens.
    public func hasClass(_ name: String) -> Bool {
        guard let classes = attribute("class") else { return false }
        return classes.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0C}" })
            .contains { $0 == name }
    }

    /// Child elements in document order (text, comments and processing instructions skipped).
    public var children: [MarkupNode] {
        var result: [MarkupNode] = []
        var child = pointer.pointee.children
        while let node = child {
            if node.pointee.type == XML_ELEMENT_NODE { result.append(MarkupNode(pointer: node, document: document)) }
            child = node.pointee.next
        }
        return result
    }

    /// All text below this node exactly as parsed: entities decoded, comments excluded, whitespace kept.
    public var rawText: String {
        var bytes: [UInt8] = []
        Self.appendText(of: pointer, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// All text below this node with whitespace runs collapsed to one space and trimmed.
    public var text: String { MarkupText.normalize(rawText) }

    /// Evaluates an XPath expression relative to this node (`.//td`, `./span[last()]`).
    public func select(_ expression: String, namespaces: [String: String] = [:]) throws(MarkupError) -> [MarkupNode] {
        try XPathQuery.evaluate(expression, in: document, context: pointer, namespaces: namespaces)
    }

    /// The first node `expression` selects, if any.
    public func first(_ expression: String, namespaces: [String: String] = [:]) throws(MarkupError) -> MarkupNode? {
        try select(expression, namespaces: namespaces).first
    }

    private static func appendText(of node: xmlNodePtr, to bytes: inout [UInt8]) {
        switch node.pointee.type {
        case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
            if let content = node.pointee.content {
                bytes.append(contentsOf: UnsafeBufferPointer(start: content, count: strlen(content)))
            }
        case XML_ELEMENT_NODE, XML_DOCUMENT_NODE, XML_HTML_DOCUMENT_NODE, XML_DOCUMENT_FRAG_NODE:
            var child = node.pointee.children
            while let current = child {
                appendText(of: current, to: &bytes)
                child = current.pointee.next
            }
        default:
            break
        }
    }
}
