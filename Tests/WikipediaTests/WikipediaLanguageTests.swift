@testable import Wikipedia
import XCTest

/// Language codes are read as bytes; they must pass and fail exactly as the split into parts did.
final class WikipediaLanguageTests: XCTestCase {
    private func reference(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count <= 16, let first = parts.first, (2...12).contains(first.utf8.count) else { return false }
        return parts.allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 97 && $0 <= 122 } }
    }

    func testCodesAreTheOnesTheSplitAccepted() {
        for text in ["de", "en", "simple", "zh-yue", "be-tarask", "d", "", "-", "de-", "-de", "de--x", "DE", "dé", "abcdefghijklm", "abcdefghijkl",
                     "ab-c", "a-bc", "abcdefghijkl-abc", "abcdefghijkl-abcd", "de_ch", "zh-min-nan"] {
            XCTAssertEqual((try? WikipediaLanguage.code(text)) != nil, reference(text), text)
        }
        let pieces = ["a", "z", "de", "-", "--", "A", "é", "_", "x", "simple"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let text = (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined()
            XCTAssertEqual((try? WikipediaLanguage.code(text)) != nil, reference(text), text)
        }
    }
}
