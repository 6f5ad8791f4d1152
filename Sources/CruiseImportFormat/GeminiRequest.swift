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
        return #"{"contents":[{"role":"user","parts":[{"text":\#(JSONString.quote(prompt))}]}],"#
            + #""generationConfig":{"responseMimeType":"application/json","responseSchema":\#(schema),"temperature":0,"#
            + #""maxOutputTokens":\#(maxOutputTokens)}}"#
    }

    /// ExtractedCruiseData as Gemini's schema subset (OpenAPI 3.0 style, upper-case types, `nullable`).
    static let schema: String = {
        let text = #"{"type":"STRING","nullable":true}"#
        let date = #"{"type":"STRING","nullable":true,"description":"YYYY-MM-DD"}"#
        let time = #"{"type":"STRING","nullable":true,"description":"HH:MM"}"#
        let port = #"{"type":"OBJECT","properties":{"name":{"type":"STRING"},"country":\#(text),"arrivalDate":\#(date),"#
            + #""arrivalTime":\#(time),"departureDate":\#(date),"departureTime":\#(time),"isSeaDay":{"type":"BOOLEAN","nullable":true}},"#
            + #""required":["name"],"propertyOrdering":["name","country","arrivalDate","arrivalTime","departureDate","departureTime","isSeaDay"]}"#
        let members = ExtractedCruise.members.map { name in
            "\(JSONString.quote(name)):\(name.hasSuffix("Date") ? date : text)"
        }
        return #"{"type":"OBJECT","properties":{\#(members.joined(separator: ",")),"ports":{"type":"ARRAY","items":\#(port),"maxItems":"100"}},"#
            + #""required":["ports"],"propertyOrdering":[\#((ExtractedCruise.members + ["ports"]).map(JSONString.quote).joined(separator: ","))]}"#
    }()
}
