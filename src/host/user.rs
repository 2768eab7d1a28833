//! The user lane when a person is at the keyboard: a live run in the app asks the user an
//! elicitation question through a channel, and the app shows it as a form (see
//! `ui::elicit`). Without one (`sightline run`, tests), the scenario's scripted answer stands
//! for the user. A question nobody answers within the timeout is cancelled, as a host
//! whose user closes the dialog would.

use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

use super::scenario::ElicitationAnswer;

/// How long a question waits for the user unless the caller says otherwise.
pub const DEFAULT_ANSWER_TIMEOUT: Duration = Duration::from_secs(300);

/// A server's `elicitation/create` put to the user: its message and requested schema.
#[derive(Debug)]
pub struct Question {
    /// The server that asks (its lane name).
    pub server: String,
    pub message: String,
    /// The request's `requestedSchema` (an object schema of flat properties).
    pub schema: Value,
    reply: tokio::sync::oneshot::Sender<ElicitationAnswer>,
}

impl Question {
    /// Whether the host stopped waiting for the answer (its timeout).
    pub fn is_abandoned(&self) -> bool {
        self.reply.is_closed()
    }

    /// Gives the user's answer back to the host (accept with content, decline, cancel).
    pub fn answer(self, answer: ElicitationAnswer) {
        // The host may have given up (timeout): then nobody waits for the answer.
        let _ = self.reply.send(answer);
    }
}

/// The host's end of the user lane.
#[derive(Debug, Clone)]
pub struct UserLane {
    questions: mpsc::Sender<Question>,
    timeout: Duration,
}

impl UserLane {
    /// A user lane and the receiver the app reads questions from.
    pub fn channel(timeout: Duration) -> (UserLane, mpsc::Receiver<Question>) {
        let (questions, receiver) = mpsc::channel();
        (UserLane { questions, timeout }, receiver)
    }

    /// Asks the user and waits for the answer; `cancel` when nobody answers in time or the
    /// app is gone.
    pub async fn ask(&self, server: &str, message: &str, schema: Value) -> ElicitationAnswer {
        let (reply, answer) = tokio::sync::oneshot::channel();
        let question = Question {
            server: server.to_string(),
            message: message.to_string(),
            schema,
            reply,
        };
        let cancel = ElicitationAnswer {
            action: "cancel".into(),
            content: None,
        };
        if self.questions.send(question).is_err() {
            return cancel;
        }
        match tokio::time::timeout(self.timeout, answer).await {
            Ok(Ok(answer)) => answer,
            _ => cancel,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_answer_comes_back_and_silence_is_a_cancel() {
        let (lane, questions) = UserLane::channel(Duration::from_millis(200));
        let user = std::thread::spawn(move || {
            let q = questions.recv().expect("a question");
            assert_eq!(q.message, "Your name?");
            q.answer(ElicitationAnswer {
                action: "accept".into(),
                content: Some(serde_json::json!({"name": "Ana"})),
            });
            // The second question is never answered.
            questions.recv().expect("a second question")
        });
        let first = lane.ask("tour", "Your name?", Value::Null).await;
        assert_eq!(first.action, "accept");
        assert_eq!(first.content, Some(serde_json::json!({"name": "Ana"})));
        let second = lane.ask("tour", "Again?", Value::Null).await;
        assert_eq!(second.action, "cancel");
        drop(user.join());
    }
}
