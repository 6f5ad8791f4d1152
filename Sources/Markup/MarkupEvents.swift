internal import CLibXML2
import Glibc

/// An element's local name as the parser saw it, compared without building a `String`.
public struct MarkupName {
    let pointer: UnsafePointer<UInt8>

    /// Whether the name is `name` (`"value"`, `"PointTimeSeriesObservation"`).
    public func `is`(_ name: StaticString) -> Bool {
        strcmp(UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self), UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)) == 0
    }

    public var string: String { String(cString: pointer) }
}

/// An element start: its name and attributes (valid only during ``MarkupEventHandler/start(_:)``).
public struct MarkupElement {
    public let name: MarkupName
    let attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    let attributeCount: Int

    /// An attribute by local name, whatever its prefix (`gml:id` → `id`).
    public func attribute(_ localName: StaticString) -> String? {
        guard let attributes else { return nil }
        for index in 0..<attributeCount {
            let base = attributes + index * 5
            guard let name = base[0], MarkupName(pointer: name).is(localName), let start = base[3], let end = base[4] else { continue }
            return String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
        }
        return nil
    }
}

/// Receives a document's elements in order.
public protocol MarkupEventHandler: AnyObject {
    /// An element starts. Return true to receive its text (all character data inside it) at its end.
    func start(_ element: MarkupElement) -> Bool
    /// An element ends; `text` is its character data when ``start(_:)`` asked for it.
    func end(_ name: MarkupName, text: String?)
}

/// Streaming XML (libxml2's SAX2 interface): no tree is built, so a large document read once (an
/// all-stations FMI answer is ~6 MB) parses several times faster than into a ``MarkupDocument``.
/// Same safety as ``MarkupDocument/xml(_:maximumBytes:)``: no network, no external entities, typed errors.
public enum MarkupEvents {
    public static func parse(
        xml bytes: [UInt8], handler: any MarkupEventHandler, maximumBytes: Int = MarkupDocument.defaultMaximumBytes
    ) throws(MarkupError) {
        guard bytes.count <= maximumBytes, bytes.count < Int(Int32.max) else {
            throw .tooLarge(bytes: bytes.count, limit: min(maximumBytes, Int(Int32.max)))
        }
        guard bytes.contains(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else { throw .empty }
        LibXML2.initialize()
        let state = ParseState(handler: handler)
        let sax = UnsafeMutablePointer<xmlSAXHandler>.allocate(capacity: 1)
        defer { sax.deallocate() }
        memset(sax, 0, MemoryLayout<xmlSAXHandler>.size)
        sax.pointee.initialized = XML_SAX2_MAGIC
        sax.pointee.startElementNs = { context, localName, _, _, _, _, attributeCount, _, attributes in
            guard let context, let localName else { return }
            ParseState.from(context).start(localName, attributes: attributes, count: Int(attributeCount))
        }
        sax.pointee.endElementNs = { context, localName, _, _ in
            guard let context, let localName else { return }
            ParseState.from(context).end(localName)
        }
        sax.pointee.characters = { context, characters, length in
            guard let context, let characters else { return }
            ParseState.from(context).characters(characters, Int(length))
        }
        sax.pointee.cdataBlock = sax.pointee.characters
        sax.pointee.serror = { context, error in
            guard let context, let error, let message = error.pointee.message else { return }
            ParseState.from(context).fail(String(cString: message))
        }
        let wellFormed: Bool = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars -> Bool in
                // The push parser copies the handler and passes `box` to every callback.
                let box = Unmanaged.passUnretained(state).toOpaque()
                guard let parser = xmlCreatePushParserCtxt(sax, box, nil, 0, nil) else { return false }
                xmlCtxtUseOptions(
                    parser,
                    Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
                        | XML_PARSE_NOBLANKS.rawValue | XML_PARSE_NOCDATA.rawValue))
                let status = xmlParseChunk(parser, chars.baseAddress, Int32(chars.count), 1)
                let ok = status == 0 && parser.pointee.wellFormed != 0
                xmlFreeParserCtxt(parser)
                return ok
            }
        }
        guard wellFormed, state.failure == nil else { throw .malformed(message: state.failure ?? "not well-formed") }
    }
}

/// What the C callbacks need: the handler and the text being collected.
private final class ParseState {
    let handler: any MarkupEventHandler
    var text: [UInt8] = []
    /// Depth of the element whose text is being collected, or -1.
    var collectingDepth = -1
    var depth = 0
    var failure: String?

    init(handler: any MarkupEventHandler) {
        self.handler = handler
    }

    static func from(_ context: UnsafeMutableRawPointer) -> ParseState {
        Unmanaged<ParseState>.fromOpaque(context).takeUnretainedValue()
    }

    func start(_ name: UnsafePointer<UInt8>, attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, count: Int) {
        depth += 1
        if handler.start(MarkupElement(name: MarkupName(pointer: name), attributes: attributes, attributeCount: count)), collectingDepth < 0 {
            collectingDepth = depth
            text.removeAll(keepingCapacity: true)
        }
    }

    func characters(_ characters: UnsafePointer<UInt8>, _ length: Int) {
        if collectingDepth >= 0 { text.append(contentsOf: UnsafeBufferPointer(start: characters, count: length)) }
    }

    func end(_ name: UnsafePointer<UInt8>) {
        if depth == collectingDepth {
            collectingDepth = -1
            handler.end(MarkupName(pointer: name), text: String(decoding: text, as: UTF8.self))
        } else {
            handler.end(MarkupName(pointer: name), text: nil)
        }
        depth -= 1
    }

    func fail(_ message: String) {
        if failure == nil { failure = MarkupText.normalize(message) }
    }
}
