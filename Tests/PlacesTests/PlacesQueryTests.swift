import Feature
import HTTPServer
import XCTest

@testable import Places

final class PlacesQueryTests: XCTestCase {
    func key(_ query: String) throws -> PlacesKey {
        try PlacesQuery.key(try XCTUnwrap(QueryParameters(raw: Substring(query))))
    }

    func message(_ query: String) -> String {
        do {
            _ = try key(query)
            return "no error"
        } catch let error as any HTTPErrorConvertible {
            XCTAssertEqual(error.httpError.status, .badRequest)
            return error.httpError.message
        } catch {
            return "\(error)"
        }
    }

    func testTheAppsRequestAndTheLatLonFormAreOneRequest() throws {
        let app = try key("categories=tourism.attraction,entertainment.museum,leisure.park&filter=circle:11.0775,49.4539,5000&limit=50&lang=de&apiKey=x")
        XCTAssertEqual(app.latitude, 49.4539)
        XCTAssertEqual(app.longitude, 11.0775, "circle: takes longitude first")
        XCTAssertEqual(app.parameters.radius, 5000)
        XCTAssertEqual(app.parameters.categories, ["entertainment.museum", "leisure.park", "tourism.attraction"])
        XCTAssertEqual(app.credits, 3)
        let plain = try key("lat=49.4539&lon=11.0775&radius=5000&categories=leisure.park,tourism.attraction,entertainment.museum")
        XCTAssertEqual(plain, app, "any category order, default limit 50 and lang de")
        XCTAssertEqual(plain.storageKey, "49.45390,11.07750;r=5000;c=entertainment.museum,leisure.park,tourism.attraction;l=50;lang=de")
        XCTAssertEqual(try key("lat=-33.8&lon=-151.2&categories=a.b&limit=20").credits, 1)
        XCTAssertEqual(try key("lat=-33.8&lon=-151.2&categories=a.b&limit=21").storageKey, "-33.80000,-151.20000;r=5000;c=a.b;l=21;lang=de")
    }

    func testBadParametersAreNamed() {
        XCTAssertTrue(message("lat=49&lon=11&categories=tourism").contains("top-level category 'tourism'"))
        XCTAssertTrue(message("lat=49&lon=11&categories=tourism.attraction,natural").contains("top-level category 'natural'"))
        XCTAssertTrue(message("lat=49&lon=11").contains("categories is required"))
        XCTAssertTrue(message("lat=49&lon=11&categories=Tourism.X").contains("categories must be"))
        XCTAssertTrue(message("lat=49&lon=11&categories=a.b&radius=0").contains("radius"))
        XCTAssertTrue(message("lat=49&lon=11&categories=a.b&radius=20001").contains("radius"))
        XCTAssertTrue(message("lat=49&lon=11&categories=a.b&limit=101").contains("limit"))
        XCTAssertTrue(message("lat=49&lon=11&categories=a.b&lang=deu").contains("lang"))
        XCTAssertTrue(message("categories=a.b").contains("lat is required"))
        XCTAssertTrue(message("filter=rect:1,2,3,4&categories=a.b").contains("filter must be circle"))
        for filter in ["circle:11,49", "circle:11,49,500,1", "circle:,49,500", "circle:11,49,", "circle:11;49;500", "circle:"] {
            XCTAssertTrue(message("filter=\(filter)&categories=a.b").contains("filter must be circle"), filter)
        }
        XCTAssertTrue(message("lat=49&lon=11&categories=a.b,").contains("categories must be"), "an empty item")
        XCTAssertTrue(message("lat=49&lon=11&categories=a.b,,c.d").contains("categories must be"), "an empty item inside")
        XCTAssertEqual(try key("lat=49&lon=11&categories=c.d,a.b,c.d,a.b").parameters.categories, ["a.b", "c.d"], "sorted, repeats once")
        XCTAssertEqual(try key("filter=circle:-0.5,-33.25,250.0&categories=a.b").parameters.radius, 250)
        XCTAssertTrue(message("filter=circle:11,49,500&radius=600&categories=a.b").contains("different radii"))
        XCTAssertTrue(message("filter=circle:11,49,500&lat=48&lon=11&categories=a.b").contains("different points"))
        XCTAssertTrue(message("lat=91&lon=11&categories=a.b").contains("lat must be between"))
    }

    func testGeocodeTextIsNormalised() throws {
        let a = try GeocodeKey(try XCTUnwrap(QueryParameters(raw: "text=%20N%C3%BCrnberg%20%20&lang=de")))
        let b = try GeocodeKey(try XCTUnwrap(QueryParameters(raw: "text=N%C3%9CRNBERG")))
        XCTAssertEqual(a, b)
        XCTAssertEqual(a.storageKey, "de;nürnberg")
        XCTAssertThrowsError(try GeocodeKey(try XCTUnwrap(QueryParameters(raw: "text=%20%20"))))
        XCTAssertThrowsError(try GeocodeKey(try XCTUnwrap(QueryParameters(raw: Substring("text=" + String(repeating: "a", count: 201))))))
        // The same text spelled decomposed (u and a combining diaeresis) is the same key, by its bytes too.
        let decomposed = try GeocodeKey(try XCTUnwrap(QueryParameters(raw: "text=Nu%CC%88rnberg&lang=de")))
        XCTAssertEqual(decomposed, a)
        XCTAssertEqual(decomposed.hashValue, a.hashValue)
        XCTAssertEqual(decomposed.storageKey, "de;nürnberg")
    }

    /// Two letters as they are, any case lowered, anything else refused.
    func testTheLanguageIsTwoLettersLowered() throws {
        XCTAssertEqual(try PlacesQuery.lang("de"), "de")
        XCTAssertEqual(try PlacesQuery.lang("zz"), "zz")
        XCTAssertEqual(try PlacesQuery.lang("DE"), "de")
        XCTAssertEqual(try PlacesQuery.lang("dE"), "de")
        XCTAssertEqual(try PlacesQuery.lang(nil), PlacesQuery.defaultLang)
        for bad in ["", "d", "deu", "d1", "d-", "dé", "{a", "a`", "@a"] {
            XCTAssertThrowsError(try PlacesQuery.lang(bad), bad)
        }
        // Read from a query: the known codes as their literals, any other as the text's rule gives it.
        func fromQuery(_ raw: String) throws -> String { try PlacesQuery.lang(in: try XCTUnwrap(QueryParameters(raw: Substring(raw)))) }
        for (raw, lang) in [
            ("lang=de", "de"), ("lang=en", "en"), ("lang=fr", "fr"), ("lang=it", "it"), ("lang=zz", "zz"), ("lang=DE", "de"),
            ("lang=%64e", "de"), ("x=1", PlacesQuery.defaultLang), ("", PlacesQuery.defaultLang), ("lang=en&lang=fr", "en"),
        ] {
            XCTAssertEqual(try fromQuery(raw), lang, raw)
        }
        for bad in ["lang=", "lang", "lang=deu", "lang=d", "lang=d%C3%A9"] {
            XCTAssertThrowsError(try fromQuery(bad), bad)
        }
    }
}
