import CruiseImport
import Feature
import Settings
import XCTest

/// The operator's settings: a model's name is one path segment of Google's URL, nothing else; the budget and the day
/// read as every keyed upstream's.
final class CruiseImportSettingsTests: XCTestCase {
    func testAModelNameCannotChangeTheURLAndTheBudgetIsTheEnginesSettings() throws {
        let defaults = try CruiseImportFeature.Settings(SettingsReader(environment: [:]))
        XCTAssertNil(defaults.key)
        XCTAssertEqual(defaults.model, GeminiClient.defaultModel)
        XCTAssertEqual(defaults.service.upstream.perDay, 500)
        for model in ["../../v1/files", "gemini?key=x", "", "Gemini 3"] {
            XCTAssertThrowsError(try CruiseImportFeature.Settings(SettingsReader(environment: ["PIER_GEMINI_MODEL": model])), model)
        }
        let set = try CruiseImportFeature.Settings(SettingsReader(environment: [
            "PIER_GEMINI_MODEL": "gemini-3.8-flash", "PIER_GEMINI_API_KEY": "k", "PIER_GEMINI_REQUESTS_PER_DAY": "40",
            "PIER_GEMINI_REQUESTS_PER_MINUTE": "2", "PIER_GEMINI_CLIENT_SHARE": "0.5",
        ]))
        XCTAssertEqual(set.model, "gemini-3.8-flash")
        XCTAssertEqual(set.key, "k")
        XCTAssertEqual(set.service.upstream.perDay, 40)
        XCTAssertEqual(set.service.upstream.budget.ratePerMinute, 2)
        XCTAssertEqual(set.service.upstream.budget.clientShare, 0.5)
    }
}
