import Basics

/// The `generateContent` body Pier sends for one import: its own instructions and the pasted text, and structured
/// output — `responseMimeType` JSON with a `responseSchema` mirroring ShipTrip's `ExtractedCruiseData` — so that the
/// model can answer nothing but that shape. Temperature 0: the same confirmation, the same cruise.
public enum GeminiRequest {
    /// The instructions, kept in Pier (changing them needs no app release). Written for this service, in English; the
    /// model reads confirmations in any language.
    static let instructions = """
        Extract the cruise booked in the confirmation below. Answer only with the fields of the schema. \
        Dates as YYYY-MM-DD, times as HH:MM (24 hours). Use null for anything the text does not state; never guess. \
        List the ports of call in order of the itinerary; a day at sea is a port named "Seetag" with isSeaDay true. \
        title: a short name for the trip; shippingLine: the cruise line; ship: the ship's name; cabinType, cabinNumber, \
        bookingNumber as written. If the text is not a cruise booking, answer with every field null and no ports.
        """

    /// What one answer may cost: a cruise of 100 ports (the most ``ExtractedCruise`` keeps) is about 6,000 tokens of
    /// JSON; past this the answer is cut (`MAX_TOKENS`, a `502`) instead of spending the operator's money on a text
    /// made to make the model write without end.
    public static let maxOutputTokens = 8192

    /// The JSON body for `text`.
    public static func body(for text: String) -> String {
        let prompt = instructions + "\n\n---\n" + text
        return JSONWriter.text { json in
            json.object { json in
                json.member("contents", array: { json in
                    json.object { json in
                        json.member("role", "user")
                        json.member("parts", array: { json in json.object { $0.member("text", prompt) } })
                    }
                })
                json.member("generationConfig", object: { json in
                    json.member("responseMimeType", "application/json")
                    json.member("responseSchema", json: schema)
                    json.member("temperature", 0)
                    json.member("maxOutputTokens", maxOutputTokens)
                })
            }
        }
    }

    /// ExtractedCruiseData as Gemini's schema subset (OpenAPI 3.0 style, upper-case types, `nullable`).
    static let schema: [UInt8] = JSONWriter.make { json in
        /// A nullable string, described (its format) or not.
        func text(_ json: inout JSONWriter, _ description: String? = nil, nullable: Bool = true) {
            json.object { json in
                json.member("type", "STRING")
                if nullable { json.member("nullable", true) }
                if let description { json.member("description", description) }
            }
        }
        func strings(_ json: inout JSONWriter, _ names: [String]) {
            json.array { json in for name in names { json.string(name) } }
        }
        json.object { json in
            json.member("type", "OBJECT")
            json.member("properties", object: { json in
                for name in ExtractedCruise.members {
                    json.key(name)
                    text(&json, name.hasSuffix("Date") ? "YYYY-MM-DD" : nil)
                }
                json.member("ports", object: { json in
                    json.member("type", "ARRAY")
                    json.member("items", object: { json in
                        json.member("type", "OBJECT")
                        json.member("properties", object: { json in
                            json.key("name")
                            text(&json, nullable: false)
                            for (name, format) in [("country", nil), ("arrivalDate", "YYYY-MM-DD"), ("arrivalTime", "HH:MM"),
                                                   ("departureDate", "YYYY-MM-DD"), ("departureTime", "HH:MM")] as [(String, String?)] {
                                json.key(name)
                                text(&json, format)
                            }
                            json.member("isSeaDay", object: { json in
                                json.member("type", "BOOLEAN")
                                json.member("nullable", true)
                            })
                        })
                        json.key("required")
                        strings(&json, ["name"])
                        json.key("propertyOrdering")
                        strings(&json, ExtractedCruise.portMembers)
                    })
                    json.member("maxItems", "100")
                })
            })
            json.key("required")
            strings(&json, ["ports"])
            json.key("propertyOrdering")
            strings(&json, ExtractedCruise.members + ["ports"])
        }
    }
}
