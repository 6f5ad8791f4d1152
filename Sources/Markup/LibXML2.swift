internal import CLibXML2

/// Process-wide libxml2 set-up and error access.
enum LibXML2 {
    /// libxml2 must be initialised once, before threads use it; `static let` runs this exactly once.
    private static let initialized: Bool = {
        xmlInitParser()
        return true
    }()

    static func initialize() {
        _ = initialized
    }

    /// The calling thread's last libxml2 error message, trimmed.
    static func lastError() -> String? {
        guard let error = xmlGetLastError(), let message = error.pointee.message else { return nil }
        return MarkupText.normalize(String(cString: message))
    }
}
