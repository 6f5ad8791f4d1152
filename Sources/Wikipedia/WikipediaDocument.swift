import Parsing

/// Checks of Wikipedia's answers before they are kept: Pier passes them on unchanged, so it only makes sure
/// they are what was asked for (garbage is logged, captured and never stored).
public enum WikipediaDocument {
    public typealias Problem = DocumentProblem<WikipediaDocument>

    /// A summary: an object with a string `title`, and — where present — the members the app decodes strictly
    /// (`pageid` an integer, `extract` a string).
    public static func checkSummary(_ body: [UInt8]) throws(Problem) {
        let root = try parse(body)
        guard root.isObject, root["title"]?.string != nil else { throw .notASummary }
        if let pageID = root["pageid"], !pageID.isInteger(in: body) { throw .notASummary }
        if let extract = root["extract"], extract.string == nil, !extract.isNull { throw .notASummary }
    }

    /// An opensearch result: exactly four elements, a string and three arrays of strings (the app gives up on
    /// anything else).
    public static func checkOpenSearch(_ body: [UInt8]) throws(Problem) {
        let root = try parse(body)
        guard let elements = root.elements, elements.count == 4, elements[0].string != nil,
            elements[1...].allSatisfy({ $0.elements?.allSatisfy { $0.string != nil } == true })
        else { throw .notAnOpenSearchResult }
    }

    private static func parse(_ body: [UInt8]) throws(Problem) -> JSONNode {
        do { return try JSONScanner.parse(body) } catch { throw .notJSON(error.description) }
    }
}

extension WikipediaDocument: NamedDocument {
    public static var documentName: String { "Wikipedia's answer" }
}

extension DocumentProblem where Document == WikipediaDocument {
    /// Not an object with a title (or a member the app decodes strictly has another type).
    static var notASummary: Self { .unexpectedShape("not a page summary (an object with a title)") }
    static var notAnOpenSearchResult: Self { .unexpectedShape("not an opensearch result ([query, [titles], [descriptions], [urls]])") }
}
