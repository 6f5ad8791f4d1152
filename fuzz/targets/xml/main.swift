import Markup

// The libxml2 wrapper's strict XML entry point (no network, no external entities) and XPath on what it
// accepts. Properties: no crash, no leak (AddressSanitizer). The streaming SAX2 reader is the fmi target's.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let document = try? MarkupDocument.xml(bytes)
    if let root = document?.root {
        _ = root.name
        _ = root.text
        _ = try? document?.select("//*[local-name()='member']")
    }
    return 0
}
