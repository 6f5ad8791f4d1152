import Markup

// The libxml2 wrapper's HTML entry point and its walks. Properties: no crash, no leak (AddressSanitizer),
// and normalised text never has leading, trailing or doubled spaces.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let document = try? MarkupDocument.html(Array(UnsafeBufferPointer(start: data, count: size))), let root = document.root else {
        return 0
    }
    var visited = 0
    root.forEachDescendant { node in
        visited += 1
        guard visited < 2000 else { return }
        let text = node.text
        precondition(!text.hasPrefix(" ") && !text.hasSuffix(" ") && !text.contains("  "), "text not normalised: \(text)")
        _ = node.attribute("class")
        _ = node.hasClass("cruise")
    }
    _ = try? document.select("//*[contains(@class, 'a')]")
    return 0
}
