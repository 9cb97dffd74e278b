import QuireSync
import QuireSyncProtocol
import Testing

// What the service and the client share (QuireSyncProtocol): the one query decoder that
// every host hands its raw request target to (issue 32, defect 3).

@Suite struct QueryDecoding {
    func query(_ target: String) -> [String: String]? {
        let r = SyncRequest(method: "GET", target: target)
        return r.queryError == nil ? r.query : nil
    }

    @Test func decodesEscapesPlusAndRepeats() {
        #expect(SyncRequest(method: "GET", target: "/a%2Fb/c?x=1").path == "/a%2Fb/c")  // the path stays encoded
        #expect(query("/p") == [:])
        #expect(query("/p?") == [:])
        #expect(query("/p?a=1&b=x%20y") == ["a": "1", "b": "x y"])
        #expect(query("/p?a=x+y%2Bz") == ["a": "x y+z"])
        #expect(query("/p?%61=%41") == ["a": "A"])
        #expect(query("/p?a=1&a=2") == ["a": "1"])
        #expect(query("/p?&&a&b=") == ["a": "", "b": ""])
        #expect(query("/p?a=%C3%A9") == ["a": "é"])
        #expect(query("/p?a=b=c") == ["a": "b=c"])
    }

    @Test func refusesWhatDoesNotDecode() {
        for bad in ["/p?id=%41%4", "/p?id=%4", "/p?id=%", "/p?id=%G1", "/p?id=%FF", "/p?id=%C3%28", "/p?%ZZ=1",
                    "/p?ok=1&id=%E2%82"] {
            let r = SyncRequest(method: "GET", target: bad)
            #expect(r.queryError != nil, "\(bad)")
            #expect(r.query.isEmpty, "\(bad)")
        }
    }

    @Test func theServiceAnswers400BeforeRouting() async throws {
        let h = try await Harness(upload: false)
        defer { Task { await h.finish() } }
        let r = await h.service.handle(SyncRequest(method: "GET", target: "/healthz?id=%41%4"))
        #expect(r.status == 400 && errorCode(r) == "bad_request")
        #expect(String(decoding: r.body, as: UTF8.self).contains("query"))
        #expect(await h.service.handle(SyncRequest(method: "GET", target: "/healthz?id=%41")).status == 200)
    }
}
