//! The token requests, through the `oauth2` crate: the authorization code with PKCE S256
//! (through the loopback listener and the browser), the refresh token, and client
//! credentials; each with the resource indicator (RFC 8707) and the token endpoint's own
//! client authentication. Tokens go to the store, never to a message.
use super::client::Registration;
use super::loopback::{self, Listener};
use super::net::{Http, NetError};
use super::store::{now, Saved};
use oauth2::basic::{BasicClient, BasicErrorResponse, BasicTokenResponse};
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge,
    RedirectUrl, RefreshToken, RequestTokenError, Scope, TokenResponse, TokenUrl,
};
use std::time::Duration;

type TokenError = RequestTokenError<NetError, BasicErrorResponse>;

/// How long a person has to finish signing in in the browser.
pub const BROWSER_WAIT: Duration = Duration::from_secs(300);

fn say(e: TokenError) -> String {
    match e {
        RequestTokenError::ServerResponse(r) => {
            let d: String = r
                .error_description()
                .map(|d| d.chars().take(200).collect())
                .unwrap_or_default();
            format!("the token endpoint refused: {} {d}", r.error())
                .trim()
                .to_string()
        }
        RequestTokenError::Request(e) => e.0,
        RequestTokenError::Parse(e, _) => {
            format!("the token endpoint's answer is not a token: {e}")
        }
        RequestTokenError::Other(s) => s,
    }
}

fn auth_type(method: &str) -> AuthType {
    if method == "client_secret_post" {
        AuthType::RequestBody
    } else {
        AuthType::BasicAuth
    }
}

/// What a token answer puts in the store.
fn keep(saved: &mut Saved, t: &BasicTokenResponse, asked: Option<&str>) {
    saved.access_token = t.access_token().secret().clone();
    if let Some(r) = t.refresh_token() {
        saved.refresh_token = Some(r.secret().clone());
    }
    saved.expires_at = t.expires_in().map(|d| now() + d.as_secs()).unwrap_or(0);
    saved.scope = match t.scopes() {
        Some(s) => s.iter().map(|x| x.as_str()).collect::<Vec<_>>().join(" "),
        None => asked.unwrap_or_default().to_string(),
    };
}

fn token_url(u: &str) -> Result<TokenUrl, String> {
    super::net::check_url(u)?;
    TokenUrl::new(u.to_string()).map_err(|e| format!("bad token endpoint {u}: {e}"))
}

/// The whole browser sign-in: authorization URL with PKCE, `state` and `resource`, the
/// browser, the redirect, the code exchanged.
pub fn authorization_code(
    name: &str,
    authorize: &str,
    saved: &mut Saved,
    reg: &Registration,
    listener: Listener,
    scope: Option<&str>,
) -> Result<(), String> {
    super::net::check_url(authorize)?;
    let mut client = BasicClient::new(ClientId::new(reg.client_id.clone()))
        .set_auth_uri(AuthUrl::new(authorize.to_string()).map_err(|e| e.to_string())?)
        .set_token_uri(token_url(&saved.token_endpoint)?)
        .set_redirect_uri(RedirectUrl::new(listener.redirect_uri()).map_err(|e| e.to_string())?)
        .set_auth_type(auth_type(&reg.method));
    if let Some(s) = &reg.secret {
        client = client.set_client_secret(ClientSecret::new(s.clone()));
    }
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let mut req = client
        .authorize_url(CsrfToken::new_random)
        .set_pkce_challenge(challenge)
        .add_extra_param("resource", saved.resource.clone());
    if let Some(s) = scope {
        req = req.add_scope(Scope::new(s.to_string()));
    }
    let (url, state) = req.url();
    let browser = loopback::open_browser(url.as_str());
    eprintln!(
        "bash-agent: sign in to MCP server {name}{}:\n  {url}",
        if browser.is_some() {
            " (opening your browser)"
        } else {
            " by opening this URL in a browser on this machine"
        }
    );
    let code = listener.wait(state.secret(), BROWSER_WAIT);
    loopback::end(browser);
    let t = client
        .exchange_code(AuthorizationCode::new(code?))
        .set_pkce_verifier(verifier)
        .add_extra_param("resource", saved.resource.clone())
        .request(&Http)
        .map_err(say)?;
    keep(saved, &t, scope);
    Ok(())
}

/// A new access token from the refresh token.
pub fn refresh(saved: &mut Saved) -> Result<(), String> {
    let rt = saved.refresh_token.clone().ok_or("no refresh token")?;
    let mut client = BasicClient::new(ClientId::new(saved.client_id.clone()))
        .set_token_uri(token_url(&saved.token_endpoint)?)
        .set_auth_type(auth_type(&saved.auth_method));
    if let Some(s) = &saved.client_secret {
        client = client.set_client_secret(ClientSecret::new(s.clone()));
    }
    let scope = saved.scope.clone();
    let t = client
        .exchange_refresh_token(&RefreshToken::new(rt))
        .add_extra_param("resource", saved.resource.clone())
        .request(&Http)
        .map_err(say)?;
    keep(saved, &t, Some(&scope));
    Ok(())
}

/// Client credentials (a headless client with its own secret, or its own key: `assertion`
/// is a signed `private_key_jwt` client assertion; no person, no browser).
pub fn client_credentials(
    saved: &mut Saved,
    reg: &Registration,
    scope: Option<&str>,
    assertion: Option<String>,
) -> Result<(), String> {
    let mut client = BasicClient::new(ClientId::new(reg.client_id.clone()))
        .set_token_uri(token_url(&saved.token_endpoint)?)
        .set_auth_type(auth_type(&reg.method));
    if let Some(s) = &reg.secret {
        client = client.set_client_secret(ClientSecret::new(s.clone()));
    }
    let mut req = client
        .exchange_client_credentials()
        .add_extra_param("resource", saved.resource.clone());
    if let Some(a) = assertion {
        req = req
            .add_extra_param(
                "client_assertion_type",
                "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            )
            .add_extra_param("client_assertion", a);
    }
    if let Some(s) = scope {
        req = req.add_scope(Scope::new(s.to_string()));
    }
    let t = req.request(&Http).map_err(say)?;
    keep(saved, &t, scope);
    Ok(())
}
