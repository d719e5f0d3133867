use std::time::Duration;

use super::*;

fn token(s: &str) -> ProgressToken {
    ProgressToken(rmcp::model::NumberOrString::String(s.to_owned().into()))
}

/// A token rmcp gives a request it sends upstream.
fn sent_as(n: i64) -> ProgressToken {
    ProgressToken(rmcp::model::NumberOrString::Number(n))
}

fn progress(token: ProgressToken, progress: f64) -> ProgressNotificationParam {
    ProgressNotificationParam::new(token, progress).with_total(3.0)
}

/// A route for the call sent upstream as `sent`, whose deliveries land in the returned receiver.
fn open(
    routes: &Arc<ProgressRoutes>,
    asked: &str,
    sent: i64,
) -> (Ticket, mpsc::UnboundedReceiver<ProgressNotificationParam>) {
    let (seen, heard) = mpsc::unbounded_channel();
    let ticket = routes
        .open_to(token(asked), sent_as(sent), move |p| {
            let seen = seen.clone();
            async move { seen.send(p).is_ok() }
        })
        .expect("a route");
    (ticket, heard)
}

async fn next(heard: &mut mpsc::UnboundedReceiver<ProgressNotificationParam>) -> Option<ProgressNotificationParam> {
    tokio::time::timeout(Duration::from_millis(200), heard.recv()).await.ok().flatten()
}

#[tokio::test]
async fn each_client_hears_its_own_calls_progress_under_its_own_token_in_order() {
    let routes = Arc::new(ProgressRoutes::default());
    // Two clients chose the same token; the upstream saw two different ones.
    let (_a, mut heard_a) = open(&routes, "1", 10);
    let (_b, mut heard_b) = open(&routes, "1", 11);
    for step in [1.0, 2.0, 3.0] {
        routes.forward(progress(sent_as(10), step));
    }
    routes.forward(progress(sent_as(11), 9.0));
    for step in [1.0, 2.0, 3.0] {
        let heard = next(&mut heard_a).await.expect("a's progress");
        assert_eq!((heard.progress_token, heard.progress), (token("1"), step));
    }
    assert_eq!(next(&mut heard_b).await.expect("b's progress").progress, 9.0);
    assert!(next(&mut heard_a).await.is_none(), "b's progress never reaches a");
}

#[tokio::test]
async fn a_token_no_call_holds_reaches_no_one_and_an_ended_call_closes_its_route() {
    let routes = Arc::new(ProgressRoutes::default());
    let (ticket, mut heard) = open(&routes, "mine", 7);
    routes.forward(progress(token("mine"), 1.0));
    routes.forward(progress(sent_as(8), 1.0));
    assert!(next(&mut heard).await.is_none(), "only the token the call was sent with is routed");
    assert!(routes.open_to(token("again"), sent_as(7), |_| async { true }).is_none(), "one route per token");
    drop(ticket);
    assert_eq!(routes.open_routes(), 0);
    routes.forward(progress(sent_as(7), 2.0));
    assert!(next(&mut heard).await.is_none(), "progress after the answer reaches no one");
}

#[tokio::test]
async fn routes_and_queues_are_bounded() {
    let routes = Arc::new(ProgressRoutes::default());
    let tickets: Vec<_> = (0..MAX_ROUTES as i64).map(|n| open(&routes, &n.to_string(), n)).collect();
    let over = MAX_ROUTES as i64;
    assert!(routes.open_to(token("over"), sent_as(over), |_| async { true }).is_none(), "past the cap no route");
    drop(tickets);
    assert_eq!(routes.open_routes(), 0);
    // A client that takes its progress only when let: the queue fills and the rest is dropped, at once.
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let (seen, mut heard) = mpsc::unbounded_channel();
    let held = Arc::clone(&gate);
    let _ticket = routes
        .open_to(token("slow"), sent_as(0), move |p| {
            let (held, seen) = (Arc::clone(&held), seen.clone());
            async move {
                held.acquire().await.expect("open").forget();
                seen.send(p).is_ok()
            }
        })
        .expect("a route");
    for step in 1..=(QUEUED * 4) {
        routes.forward(progress(sent_as(0), step as f64));
    }
    gate.add_permits(QUEUED * 4);
    let mut delivered = 0;
    while next(&mut heard).await.is_some() {
        delivered += 1;
    }
    // The queue holds QUEUED; one more may be in the sender's hands when the rest arrive.
    assert!((QUEUED..=QUEUED + 1).contains(&delivered), "{delivered} delivered of {}", QUEUED * 4);
}

#[tokio::test]
async fn progress_never_goes_back_whatever_order_it_is_handled_in() {
    let routes = Arc::new(ProgressRoutes::default());
    let (_ticket, mut heard) = open(&routes, "p", 1);
    for step in [1.0, 3.0, 2.0, 3.0, 4.0] {
        routes.forward(progress(sent_as(1), step));
    }
    let mut passed = Vec::new();
    while let Some(p) = next(&mut heard).await {
        passed.push(p.progress);
    }
    assert_eq!(passed, [1.0, 3.0, 4.0], "2 came after 3, and 3 again: both dropped");
}

/// On paused time: the late notification's timer fires before the quiet
/// period ends however busy the machine is, as it would on an idle one.
#[tokio::test(start_paused = true)]
async fn progress_still_on_its_way_when_the_answer_comes_is_sent_before_settle_returns() {
    let routes = Arc::new(ProgressRoutes::default());
    let (ticket, mut heard) = open(&routes, "late", 3);
    // As rmcp does: each notification handled on a task of its own, which may run after the answer.
    let late = Arc::clone(&routes);
    tokio::spawn(async move {
        tokio::time::sleep(QUIET / 2).await;
        late.forward(progress(sent_as(3), 3.0));
    });
    ticket.settle().await;
    assert_eq!(heard.try_recv().expect("sent before the answer").progress, 3.0);
    assert_eq!(routes.open_routes(), 0, "settled: the route is closed");
}

#[tokio::test]
async fn the_upstreams_progress_message_arrives_escaped() {
    let routes = Arc::new(ProgressRoutes::default());
    let (_ticket, mut heard) = open(&routes, "1", 10);
    routes.forward(progress(sent_as(10), 1.0).with_message("step\u{E0041}\u{1B}[2J 1\tof 3"));
    let heard = next(&mut heard).await.expect("progress");
    assert_eq!(heard.message.as_deref(), Some("step\\u{E0041}\\u{001B}[2J 1\tof 3"));
}
