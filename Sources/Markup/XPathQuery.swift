internal import CLibXML2

/// XPath evaluation over libxml2; every context and result object is freed before returning.
enum XPathQuery {
    static func evaluate(
        _ expression: String, in document: MarkupDocument, context node: xmlNodePtr?, namespaces: [String: String]
    ) throws(MarkupError) -> [MarkupNode] {
        guard let context = xmlXPathNewContext(document.pointer) else {
            throw .malformed(message: "libxml2 could not allocate an XPath context")
        }
        defer { xmlXPathFreeContext(context) }
        // Errors come back as a nil result; without a handler libxml2 would also print them to stderr.
        context.pointee.error = { _, _ in }
        if let node { context.pointee.node = node }
        for (prefix, uri) in namespaces {
            xmlXPathRegisterNs(context, prefix, uri)
        }
        guard let object = xmlXPathEvalExpression(expression, context) else { throw .invalidXPath(expression) }
        defer { xmlXPathFreeObject(object) }
        guard let set = object.pointee.nodesetval, set.pointee.nodeNr > 0, let table = set.pointee.nodeTab else {
            return []
        }
        var nodes: [MarkupNode] = []
        nodes.reserveCapacity(Int(set.pointee.nodeNr))
        for index in 0..<Int(set.pointee.nodeNr) {
            if let pointer = table[index] { nodes.append(MarkupNode(pointer: pointer, document: document)) }
        }
        return nodes
    }
}

/// Builders for XPath fragments that are easy to get wrong by hand.
public enum XPath {
    /// A predicate body true for elements whose `class` has `name` as a whole token:
    /// `class="ship even"` matches `ship`, `class="shipyard"` does not.
    public static func hasClass(_ name: String) -> String {
        "contains(concat(' ', normalize-space(@class), ' '), ' \(name) ')"
    }
}
